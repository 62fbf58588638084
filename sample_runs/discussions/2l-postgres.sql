-- 2L (LLM Mafia) game database on PostgreSQL: Prisma's schema and the sample
-- games of sample_runs/discussions/baseline/games.db.
-- Written by sample_runs/make_2l_postgres.py; load with psql -f.
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

BEGIN;

CREATE TABLE "Game" (
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currentPhase" TEXT,
    "roundNumber" INTEGER NOT NULL DEFAULT 1,
    "winner" TEXT,
    "playerCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Game_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "Player" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "personality" TEXT NOT NULL,
    "isAlive" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL,
    "eliminatedInRound" INTEGER,
    "eliminationType" TEXT,
    CONSTRAINT "Player_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "DiscussionMessage" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "playerId" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "inReplyToId" TEXT,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "turn" INTEGER NOT NULL,
    CONSTRAINT "DiscussionMessage_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "NightMessage" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "playerId" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "inReplyToId" TEXT,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "turn" INTEGER NOT NULL,
    CONSTRAINT "NightMessage_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "Vote" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "roundNumber" INTEGER NOT NULL,
    "voterId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "justification" TEXT,
    "phaseType" TEXT NOT NULL DEFAULT 'VOTING',
    "voteOrder" INTEGER NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Vote_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "GameEvent" (
    "id" TEXT NOT NULL,
    "gameId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "GameEvent_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "Player_gameId_idx" ON "Player"("gameId");
CREATE INDEX "DiscussionMessage_gameId_roundNumber_idx"
    ON "DiscussionMessage"("gameId", "roundNumber");
CREATE INDEX "NightMessage_gameId_roundNumber_idx" ON "NightMessage"("gameId", "roundNumber");
CREATE INDEX "Vote_gameId_roundNumber_idx" ON "Vote"("gameId", "roundNumber");
CREATE INDEX "GameEvent_gameId_idx" ON "GameEvent"("gameId");

ALTER TABLE "Player" ADD CONSTRAINT "Player_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "DiscussionMessage" ADD CONSTRAINT "DiscussionMessage_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "NightMessage" ADD CONSTRAINT "NightMessage_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Vote" ADD CONSTRAINT "Vote_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "GameEvent" ADD CONSTRAINT "GameEvent_gameId_fkey"
    FOREIGN KEY ("gameId") REFERENCES "Game"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "Game" ("id", "status", "currentPhase", "roundNumber", "winner", "playerCount", "createdAt") VALUES ('base-7-1', 'GAME_OVER', 'GAME_OVER', 2, 'MAFIA', 6, '2026-03-07 19:00:00.000');
INSERT INTO "Game" ("id", "status", "currentPhase", "roundNumber", "winner", "playerCount", "createdAt") VALUES ('base-7-2', 'GAME_OVER', 'GAME_OVER', 2, 'MAFIA', 6, '2026-03-08 19:00:00.000');
INSERT INTO "Game" ("id", "status", "currentPhase", "roundNumber", "winner", "playerCount", "createdAt") VALUES ('base-7-3', 'GAME_OVER', 'GAME_OVER', 2, 'MAFIA', 6, '2026-03-09 19:00:00.000');

INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p0', 'base-7-1', 'Alder', 'VILLAGER', 'analytical', true, 0);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p1', 'base-7-1', 'Birch', 'MAFIA', 'aggressive', true, 1);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p2', 'base-7-1', 'Cedar', 'VILLAGER', 'cautious', true, 2);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p3', 'base-7-1', 'Dogwood', 'VILLAGER', 'social', true, 3);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p4', 'base-7-1', 'Elm', 'MAFIA', 'suspicious', true, 4);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-1-p5', 'base-7-1', 'Fir', 'VILLAGER', 'logical', true, 5);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p0', 'base-7-2', 'Alder', 'MAFIA', 'analytical', true, 0);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p1', 'base-7-2', 'Birch', 'MAFIA', 'aggressive', true, 1);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p2', 'base-7-2', 'Cedar', 'VILLAGER', 'cautious', true, 2);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p3', 'base-7-2', 'Dogwood', 'VILLAGER', 'social', true, 3);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p4', 'base-7-2', 'Elm', 'VILLAGER', 'suspicious', true, 4);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-2-p5', 'base-7-2', 'Fir', 'VILLAGER', 'logical', true, 5);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p0', 'base-7-3', 'Alder', 'VILLAGER', 'analytical', true, 0);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p1', 'base-7-3', 'Birch', 'VILLAGER', 'aggressive', true, 1);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p2', 'base-7-3', 'Cedar', 'VILLAGER', 'cautious', true, 2);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p3', 'base-7-3', 'Dogwood', 'MAFIA', 'social', true, 3);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p4', 'base-7-3', 'Elm', 'VILLAGER', 'suspicious', true, 4);
INSERT INTO "Player" ("id", "gameId", "name", "role", "personality", "isAlive", "position") VALUES ('base-7-3-p5', 'base-7-3', 'Fir', 'MAFIA', 'logical', true, 5);

INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m01', 'base-7-1', 1, 'base-7-1-p2', 'Hello everyone, let''s be careful. Alder has been quiet, which seems suspicious. We should listen before we vote.', NULL, '2026-03-07 19:00:11.000', 1);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m02', 'base-7-1', 1, 'base-7-1-p3', 'I am not sure about anyone yet. I think Alder is hiding something because the answers keep changing. I trust Elm for now.', 'base-7-1-m01', '2026-03-07 19:00:22.000', 2);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m03', 'base-7-1', 1, 'base-7-1-p1', 'I am not sure about anyone yet. I think Fir is hiding something because the answers keep changing. Fir has been quiet, which seems suspicious.', NULL, '2026-03-07 19:00:33.000', 3);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m04', 'base-7-1', 1, 'base-7-1-p5', 'I am not sure about anyone yet. I think Alder is hiding something because the answers keep changing. I trust Birch for now.', 'base-7-1-m03', '2026-03-07 19:00:44.000', 4);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m05', 'base-7-1', 1, 'base-7-1-p4', 'Hello everyone, let''s be careful. I trust Alder for now. I trust Cedar for now.', NULL, '2026-03-07 19:00:55.000', 5);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m06', 'base-7-1', 1, 'base-7-1-p0', 'Hello everyone, let''s be careful. Fir has been quiet, which seems suspicious. I trust Cedar for now.', 'base-7-1-m05', '2026-03-07 19:01:06.000', 6);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m07', 'base-7-1', 2, 'base-7-1-p1', 'Good luck to all of us today. Earlier Fir said we should wait, and I agree with that. We should listen before we vote.', NULL, '2026-03-07 19:01:17.000', 7);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m08', 'base-7-1', 2, 'base-7-1-p3', 'Good luck to all of us today. Can Cedar explain that last comment? I think Birch is hiding something because the answers keep changing.', NULL, '2026-03-07 19:01:28.000', 8);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m09', 'base-7-1', 2, 'base-7-1-p2', 'Hello everyone, let''s be careful. Fir has been quiet, which seems suspicious. Can Fir explain that last comment?', NULL, '2026-03-07 19:01:39.000', 9);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m10', 'base-7-1', 2, 'base-7-1-p5', 'This is a hard one to read. Earlier Dogwood said we should wait, and I agree with that. Can Elm explain that last comment?', NULL, '2026-03-07 19:01:50.000', 10);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m11', 'base-7-1', 2, 'base-7-1-p0', 'I am not sure about anyone yet. I trust Elm for now. I think Dogwood is hiding something because the answers keep changing.', 'base-7-1-m10', '2026-03-07 19:02:01.000', 11);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-1-m12', 'base-7-1', 2, 'base-7-1-p4', 'Good luck to all of us today. We should listen before we vote. Earlier Alder said we should wait, and I agree with that.', NULL, '2026-03-07 19:02:12.000', 12);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m01', 'base-7-2', 1, 'base-7-2-p1', 'This is a hard one to read. We should listen before we vote. Dogwood has been quiet, which seems suspicious.', NULL, '2026-03-08 19:00:11.000', 1);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m02', 'base-7-2', 1, 'base-7-2-p2', 'Good luck to all of us today. Can Elm explain that last comment? Earlier Dogwood said we should wait, and I agree with that.', 'base-7-2-m01', '2026-03-08 19:00:22.000', 2);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m03', 'base-7-2', 1, 'base-7-2-p0', 'Good luck to all of us today. Can Cedar explain that last comment? I trust Birch for now.', NULL, '2026-03-08 19:00:33.000', 3);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m04', 'base-7-2', 1, 'base-7-2-p5', 'Hello everyone, let''s be careful. Nobody has given real evidence yet. I think Birch is hiding something because the answers keep changing.', 'base-7-2-m03', '2026-03-08 19:00:44.000', 4);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m05', 'base-7-2', 1, 'base-7-2-p3', 'Good luck to all of us today. Birch has been quiet, which seems suspicious. We should listen before we vote.', NULL, '2026-03-08 19:00:55.000', 5);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m06', 'base-7-2', 1, 'base-7-2-p4', 'Hello everyone, let''s be careful. Nobody has given real evidence yet. Nobody has given real evidence yet.', 'base-7-2-m05', '2026-03-08 19:01:06.000', 6);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m07', 'base-7-2', 2, 'base-7-2-p1', 'I am not sure about anyone yet. I think Cedar is hiding something because the answers keep changing. I think Cedar is hiding something because the answers keep changing.', 'base-7-2-m06', '2026-03-08 19:01:17.000', 7);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m08', 'base-7-2', 2, 'base-7-2-p4', 'Hello everyone, let''s be careful. Can Cedar explain that last comment? Birch has been quiet, which seems suspicious.', NULL, '2026-03-08 19:01:28.000', 8);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m09', 'base-7-2', 2, 'base-7-2-p0', 'This is a hard one to read. I trust Fir for now. Can Cedar explain that last comment?', NULL, '2026-03-08 19:01:39.000', 9);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m10', 'base-7-2', 2, 'base-7-2-p5', 'I am not sure about anyone yet. We should listen before we vote. We should listen before we vote.', 'base-7-2-m09', '2026-03-08 19:01:50.000', 10);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m11', 'base-7-2', 2, 'base-7-2-p2', 'I am not sure about anyone yet. We should listen before we vote. Birch has been quiet, which seems suspicious.', 'base-7-2-m10', '2026-03-08 19:02:01.000', 11);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-2-m12', 'base-7-2', 2, 'base-7-2-p3', 'Hello everyone, let''s be careful. We should listen before we vote. Cedar has been quiet, which seems suspicious.', NULL, '2026-03-08 19:02:12.000', 12);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m01', 'base-7-3', 1, 'base-7-3-p1', 'Good luck to all of us today. I think Dogwood is hiding something because the answers keep changing. Can Fir explain that last comment?', NULL, '2026-03-09 19:00:11.000', 1);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m02', 'base-7-3', 1, 'base-7-3-p5', 'This is a hard one to read. We should listen before we vote. Dogwood has been quiet, which seems suspicious.', NULL, '2026-03-09 19:00:22.000', 2);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m03', 'base-7-3', 1, 'base-7-3-p3', 'Good luck to all of us today. We should listen before we vote. Can Alder explain that last comment?', 'base-7-3-m02', '2026-03-09 19:00:33.000', 3);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m04', 'base-7-3', 1, 'base-7-3-p0', 'This is a hard one to read. Earlier Dogwood said we should wait, and I agree with that. We should listen before we vote.', NULL, '2026-03-09 19:00:44.000', 4);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m05', 'base-7-3', 1, 'base-7-3-p4', 'Hello everyone, let''s be careful. I trust Cedar for now. I think Fir is hiding something because the answers keep changing.', NULL, '2026-03-09 19:00:55.000', 5);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m06', 'base-7-3', 1, 'base-7-3-p2', 'This is a hard one to read. Earlier Alder said we should wait, and I agree with that. Earlier Dogwood said we should wait, and I agree with that.', NULL, '2026-03-09 19:01:06.000', 6);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m07', 'base-7-3', 2, 'base-7-3-p0', 'Hello everyone, let''s be careful. I trust Cedar for now. Nobody has given real evidence yet.', NULL, '2026-03-09 19:01:17.000', 7);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m08', 'base-7-3', 2, 'base-7-3-p3', 'Hello everyone, let''s be careful. I think Fir is hiding something because the answers keep changing. We should listen before we vote.', NULL, '2026-03-09 19:01:28.000', 8);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m09', 'base-7-3', 2, 'base-7-3-p4', 'I am not sure about anyone yet. Nobody has given real evidence yet. We should listen before we vote.', 'base-7-3-m08', '2026-03-09 19:01:39.000', 9);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m10', 'base-7-3', 2, 'base-7-3-p5', 'This is a hard one to read. We should listen before we vote. Can Alder explain that last comment?', 'base-7-3-m09', '2026-03-09 19:01:50.000', 10);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m11', 'base-7-3', 2, 'base-7-3-p2', 'Hello everyone, let''s be careful. We should listen before we vote. Can Birch explain that last comment?', NULL, '2026-03-09 19:02:01.000', 11);
INSERT INTO "DiscussionMessage" ("id", "gameId", "roundNumber", "playerId", "message", "inReplyToId", "timestamp", "turn") VALUES ('base-7-3-m12', 'base-7-3', 2, 'base-7-3-p1', 'I am not sure about anyone yet. We should listen before we vote. Nobody has given real evidence yet.', NULL, '2026-03-09 19:02:12.000', 12);

INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v10', 'base-7-1', 1, 'base-7-1-p0', 'base-7-1-p1', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v11', 'base-7-1', 1, 'base-7-1-p1', 'base-7-1-p2', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v12', 'base-7-1', 1, 'base-7-1-p2', 'base-7-1-p3', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v13', 'base-7-1', 1, 'base-7-1-p3', 'base-7-1-p4', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v14', 'base-7-1', 1, 'base-7-1-p4', 'base-7-1-p5', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v15', 'base-7-1', 1, 'base-7-1-p5', 'base-7-1-p0', 'Seemed off.', '2026-03-07 19:04:00.000', 'VOTING', 6);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v20', 'base-7-1', 2, 'base-7-1-p0', 'base-7-1-p2', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v21', 'base-7-1', 2, 'base-7-1-p1', 'base-7-1-p3', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v22', 'base-7-1', 2, 'base-7-1-p2', 'base-7-1-p4', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v23', 'base-7-1', 2, 'base-7-1-p3', 'base-7-1-p5', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v24', 'base-7-1', 2, 'base-7-1-p4', 'base-7-1-p0', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-1-v25', 'base-7-1', 2, 'base-7-1-p5', 'base-7-1-p1', 'Seemed off.', '2026-03-07 19:08:00.000', 'VOTING', 6);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v10', 'base-7-2', 1, 'base-7-2-p0', 'base-7-2-p1', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v11', 'base-7-2', 1, 'base-7-2-p1', 'base-7-2-p2', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v12', 'base-7-2', 1, 'base-7-2-p2', 'base-7-2-p3', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v13', 'base-7-2', 1, 'base-7-2-p3', 'base-7-2-p4', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v14', 'base-7-2', 1, 'base-7-2-p4', 'base-7-2-p5', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v15', 'base-7-2', 1, 'base-7-2-p5', 'base-7-2-p0', 'Seemed off.', '2026-03-08 19:04:00.000', 'VOTING', 6);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v20', 'base-7-2', 2, 'base-7-2-p0', 'base-7-2-p2', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v21', 'base-7-2', 2, 'base-7-2-p1', 'base-7-2-p3', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v22', 'base-7-2', 2, 'base-7-2-p2', 'base-7-2-p4', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v23', 'base-7-2', 2, 'base-7-2-p3', 'base-7-2-p5', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v24', 'base-7-2', 2, 'base-7-2-p4', 'base-7-2-p0', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-2-v25', 'base-7-2', 2, 'base-7-2-p5', 'base-7-2-p1', 'Seemed off.', '2026-03-08 19:08:00.000', 'VOTING', 6);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v10', 'base-7-3', 1, 'base-7-3-p0', 'base-7-3-p1', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v11', 'base-7-3', 1, 'base-7-3-p1', 'base-7-3-p2', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v12', 'base-7-3', 1, 'base-7-3-p2', 'base-7-3-p3', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v13', 'base-7-3', 1, 'base-7-3-p3', 'base-7-3-p4', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v14', 'base-7-3', 1, 'base-7-3-p4', 'base-7-3-p5', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v15', 'base-7-3', 1, 'base-7-3-p5', 'base-7-3-p0', 'Seemed off.', '2026-03-09 19:04:00.000', 'VOTING', 6);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v20', 'base-7-3', 2, 'base-7-3-p0', 'base-7-3-p2', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 1);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v21', 'base-7-3', 2, 'base-7-3-p1', 'base-7-3-p3', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 2);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v22', 'base-7-3', 2, 'base-7-3-p2', 'base-7-3-p4', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 3);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v23', 'base-7-3', 2, 'base-7-3-p3', 'base-7-3-p5', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 4);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v24', 'base-7-3', 2, 'base-7-3-p4', 'base-7-3-p0', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 5);
INSERT INTO "Vote" ("id", "gameId", "roundNumber", "voterId", "targetId", "justification", "timestamp", "phaseType", "voteOrder") VALUES ('base-7-3-v25', 'base-7-3', 2, 'base-7-3-p5', 'base-7-3-p1', 'Seemed off.', '2026-03-09 19:08:00.000', 'VOTING', 6);

COMMIT;
