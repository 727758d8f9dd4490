// Command egohost is the egohost native host, service and CLI.
//
//	egohost serve                       run the service in the foreground
//	egohost chrome-extension://<id>/    relay mode (Chrome starts this)
//	egohost install ...                 register the native host, the service
//	egohost launch ...                  start a browser with the extension
//	egohost tabs | open | cdp ...       talk to the running service
package main

import (
	"io"
	"log/slog"
	"os"

	"github.com/egohost/egohost/config"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what every command gets: its streams and the loaded configuration.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cfg            *config.Config
	log            *slog.Logger
	json           bool   // --json
	agent          string // --agent: the agent name sent to the service ("" = the person)
}

func loadConfig(file string) (*config.Config, error) {
	home, _ := os.UserHomeDir()
	return config.Load(config.Options{File: file, Getenv: os.Getenv, Home: home})
}

// exitServiceLost is the exit code of a command whose call the service
// never answered because it stopped mid-call.
const exitServiceLost = 3

// usageError is a mistake in the command line (exit code 2).
type usageError string

func (u usageError) Error() string { return string(u) }
