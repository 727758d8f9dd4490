// Command egohost is egohost's command line: every client verb (tabs,
// open, snapshot, click, eval, …) runs in this process, which links
// nothing but the client, so that a call an agent makes per step starts
// fast. The commands that need the service, the MCP SDK or the OS's
// service manager (serve, relay mode, install, uninstall, launch, doctor,
// demo, mcp, pair, trace show) run egohost-host, the full binary beside this one,
// with the same arguments and environment.
//
//	egohost tabs | open | snapshot | click …   talk to the running service
//	egohost serve | install | launch …         run egohost-host
package main

import (
	"os"

	"github.com/egohost/egohost/internal/front/cli"
)

// version is egohost's version, set at build time with
// -ldflags "-X main.version=v1.2.3" (cli.Options.Version).
var version = ""

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{Version: version}))
}
