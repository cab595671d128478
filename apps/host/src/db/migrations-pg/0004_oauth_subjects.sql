-- OAuth subjects (oauth:<sub>): the grants and expiry of the latest access token seen of each, read again at each
-- tool call of a process the subject created (there is no key row to read for them; no token is stored).
CREATE TABLE "oauth_subjects" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"role" text COLLATE "C" NOT NULL,
	"services" json,
	"expires_at" text COLLATE "C" NOT NULL,
	"seen_at" text COLLATE "C" NOT NULL
);
