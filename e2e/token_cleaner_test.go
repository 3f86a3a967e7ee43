package e2e

import (
	"testing"
	"time"
)

// An expired personal access token is deleted by the cleaner; a token that
// never expires stays.
// covers AUTH-14
func TestExpiredTokensAreCleaned(t *testing.T) {
	s := startServer(t, serverConfig{dataDir: newDataDir(t), defaultRoot: true,
		env: map[string]string{"IGGY_PERSONAL_ACCESS_TOKEN_CLEANER_INTERVAL": "1s"}})
	c := s.root()
	if _, err := c.CreatePersonalAccessToken("short", uint64(time.Second/time.Microsecond)); err != nil {
		t.Fatalf("create short-lived token: %v", err)
	}
	if _, err := c.CreatePersonalAccessToken("forever", ^uint64(0)); err != nil {
		t.Fatalf("create lasting token: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		tokens, err := c.GetPersonalAccessTokens()
		if err != nil {
			t.Fatalf("list tokens: %v", err)
		}
		if len(tokens) == 1 && tokens[0].Name == "forever" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tokens after the cleaner should have run: %+v", tokens)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
