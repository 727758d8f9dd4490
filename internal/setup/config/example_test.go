package config_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/setup/config"
)

func ExampleLoad() {
	environment := map[string]string{
		"XDG_RUNTIME_DIR":          "/run/user/1000",
		"EGOHOST_TIMEOUTS_REQUEST": "2s",
	}
	c, err := config.Load(config.Options{
		Getenv: func(k string) string { return environment[k] }, // os.Getenv in main
		Home:   "/home/ada",
		GOOS:   "linux",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Listen, c.Timeouts.Request, c.Limits.MaxBrowserFrame)
	fmt.Println(c.Socket)

	environment["EGOHOST_TIMEOUTS_REQUEST"] = "abc"
	_, err = config.Load(config.Options{
		Getenv: func(k string) string { return environment[k] },
		Home:   "/home/ada",
		GOOS:   "linux",
	})
	fmt.Println(err)
	// Output:
	// 127.0.0.1:47821 2s 67108864
	// /run/user/1000/egohost/relay.sock
	// config: timeouts.request: "abc" is not a duration (e.g. 5000 for milliseconds, 500ms, 10s) (from $EGOHOST_TIMEOUTS_REQUEST)
}
