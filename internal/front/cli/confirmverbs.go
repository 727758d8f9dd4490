package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/egohost/egohost/protocol"
)

// confirmCommand is `egohost confirm list | allow ID | deny ID`: the
// owner answers the acts of paired agents that wait for the person's yes
// (agents.confirm; README "Confirmations"), as the popup does.
func (c *cli) confirmCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "confirm list | allow ID [--always] | deny ID",
		Short:   "answer the agents' acts that wait for the person's yes (the owner's CLI only)",
		Example: "  egohost confirm list\n  egohost confirm allow c3\n  egohost confirm allow c3 --always\n  egohost confirm deny c3",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "the acts waiting for the person's answer",
		Args:  nArgs(0, 0),
		RunE: c.with(ownerCall(protocol.MethodConfirmList, protocol.ConfirmListParams{}, printAs(func(w io.Writer, l protocol.ConfirmListResult) error {
			for _, q := range l.Pending {
				fmt.Fprintf(w, "%-5s %-16s %s (%s; %ds left)\n", q.ID, q.Agent, q.Action, q.Kind, q.ExpiresMs/1000)
			}
			if len(l.Pending) == 0 {
				fmt.Fprintln(w, "no act waits for the person")
			}
			return nil
		}))),
	}
	allow := &cobra.Command{Use: "allow ID", Short: "let the act ID happen (once, or --always for that agent on that origin)", Args: nArgs(1, 1)}
	always := allow.Flags().Bool("always", false, "let every later act of this kind by this agent on this origin through unasked")
	allow.RunE = func(cmd *cobra.Command, args []string) error {
		return c.with(ownerCall(protocol.MethodConfirmAnswer, protocol.ConfirmAnswerParams{ID: args[0], Allow: true, Always: *always}, printAs(printDecision)))(cmd, args)
	}
	deny := &cobra.Command{Use: "deny ID", Short: "refuse the act ID (the agent gets denied_by_person)", Args: nArgs(1, 1)}
	deny.RunE = func(cmd *cobra.Command, args []string) error {
		return c.with(ownerCall(protocol.MethodConfirmAnswer, protocol.ConfirmAnswerParams{ID: args[0]}, printAs(printDecision)))(cmd, args)
	}
	cmd.AddCommand(list, allow, deny)
	return cmd
}

func printDecision(w io.Writer, r protocol.ConfirmAnswerResult) error {
	_, err := fmt.Fprintf(w, "%s %s\n", r.Decision, r.ID)
	return err
}

// printConfirmWaits prints the confirm.waiting notifications of a
// connection on w ("waiting for the person to confirm: click button
// 'Place order' on shop.example"), until the connection ends.
func printConfirmWaits(w io.Writer, notes <-chan protocol.Message) {
	for m := range notes {
		if m.Method != protocol.NotifyConfirmWaiting {
			continue
		}
		var n protocol.ConfirmWaiting
		if json.Unmarshal(m.Params, &n) == nil && n.Message != "" {
			fmt.Fprintf(w, "egohost: %s (id %s)\n", n.Message, n.ID)
		}
	}
}
