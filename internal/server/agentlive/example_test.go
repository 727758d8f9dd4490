package agentlive_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/server/agentlive"
)

// session is a connection of an agent: its name, and a way to close it.
type session struct {
	agent string
	stop  func()
}

func (s *session) Cut() { s.stop() }

// The service revokes an agent: its connections are cut at once.
func Example() {
	var live agentlive.Registry[*session, string]
	bot := &session{agent: "bot", stop: func() { fmt.Println("bot's connection closed") }}
	other := &session{agent: "other", stop: func() { fmt.Println("other's connection closed") }}
	live.Add(bot)
	live.Add(other)
	defer live.Track(bot, "page.click")()

	for _, lc := range live.List() {
		fmt.Println(lc.ID, lc.Conn.agent, len(live.Calls(lc.Conn)), "call(s) in flight")
	}
	n := live.Cut(func(lc agentlive.Live[*session]) bool { return lc.Conn.agent == "bot" })
	fmt.Println(n, "cut")
	// Output:
	// 1 bot 1 call(s) in flight
	// 2 other 0 call(s) in flight
	// bot's connection closed
	// 1 cut
}
