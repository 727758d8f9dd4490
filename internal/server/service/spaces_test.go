package service

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

func (f *fixture) agentNamed(t *testing.T, name string) (*client.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, f.s.Addr(), f.s.Token(), client.Options{Agent: name})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestAgentNames(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, bad := range []string{"has space", "-x", "a:b", "ünicode", "0123456789012345678901234567890123"} {
		_, err := f.agentNamed(t, bad)
		wantCode(t, err, protocol.CodeInvalidParams)
	}
	alice, err := f.agentNamed(t, "alice")
	if err != nil {
		t.Fatal(err)
	}
	var hr protocol.HelloResult
	if err := alice.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: "alice"}, &hr); err != nil || hr.Agent != "alice" {
		t.Fatalf("hello with its own name: %+v, %v", hr, err)
	}
	wantCode(t, alice.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: "bob"}, nil), protocol.CodeInvalidParams)

	person := f.agent(t)
	wantCode(t, person.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: "bad name"}, nil), protocol.CodeInvalidParams)
	if err := person.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: "carol"}, &hr); err != nil || hr.Agent != "carol" {
		t.Fatalf("hello naming an unnamed connection: %+v, %v", hr, err)
	}
}

func TestSpacesMethodsWhoMayCall(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	person := f.agent(t)
	alice, err := f.agentNamed(t, "alice")
	if err != nil {
		t.Fatal(err)
	}
	// The person has no space of their own; agents cannot take over.
	wantCode(t, person.Call(ctx, protocol.MethodSpacesNew, nil, nil), protocol.CodeInvalidRequest)
	wantCode(t, person.Call(ctx, protocol.MethodSpacesClaim, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 3}}, nil), protocol.CodeInvalidRequest)
	wantCode(t, alice.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: "s1"}, nil), protocol.CodeInvalidRequest)
	wantCode(t, person.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: "s9"}, nil), protocol.CodeInvalidParams)
	wantCode(t, person.Call(ctx, protocol.MethodSpacesTakeOver, nil, nil), protocol.CodeInvalidParams)
	// An agent without a space: nothing to wait for or complete, and a
	// call on no tab is not the person's focused tab.
	wantCode(t, alice.Call(ctx, protocol.MethodSpacesWaitForControl, nil, nil), protocol.CodeNotInSpace)
	wantCode(t, alice.Call(ctx, protocol.MethodSpacesComplete, nil, nil), protocol.CodeNotInSpace)
	wantCode(t, alice.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{Task: "two\nlines"}, nil), protocol.CodeInvalidParams)
	var list protocol.SpacesListResult
	if err := alice.Call(ctx, protocol.MethodSpacesList, nil, &list); err != nil || len(list.Spaces) != 0 {
		t.Fatalf("spaces.list of a new agent: %+v, %v; want none", list, err)
	}
}
