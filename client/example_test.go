package client_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// Find the running service as the CLI does (its state file says where it
// listens, the token file holds the bearer token), then list the tabs of
// the connected browser.
func Example() {
	home, _ := os.UserHomeDir()
	stateDir := filepath.Join(home, ".local", "state", "egohost") // config.yaml's state_dir
	st, ok := client.ReadState(stateDir)
	if !ok {
		log.Fatal("the egohost service is not running: start it with `egohost serve`")
	}
	token, err := client.ReadToken(filepath.Join(stateDir, "token"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, st.Addr, token, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var tabs protocol.TabsListResult
	if err := c.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, &tabs); err != nil {
		log.Fatal(err) // a *protocol.Error says why: no_browser, browser_reconnecting, …
	}
	for _, t := range tabs.Tabs {
		fmt.Println(t.ID, t.Title, t.URL)
	}
}
