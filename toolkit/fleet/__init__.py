"""Finding runs in folders and mapping work over them."""
