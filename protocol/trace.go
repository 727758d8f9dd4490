package protocol

import "time"

// Traces (PROTOCOL.md §3.8, docs/trace.md): the owner records what
// agents did, as steps with screenshots, in a file of the service's data
// dir.
const (
	MethodTraceStart = "trace.start"
	MethodTraceStop  = "trace.stop"
	MethodTraceList  = "trace.list"
)

// TraceStartParams are trace.start's params.
type TraceStartParams struct {
	// Agents are the agents to trace (by name); none: every agent.
	Agents []string `json:"agents,omitempty"`
	// Out names the trace file in the data dir's traces folder: a plain
	// file name (no folder), ".jsonl" added when it has no extension;
	// empty: trace-TIME.jsonl.
	Out string `json:"out,omitempty"`
}

// TraceStatus is the trace being recorded (trace.start, trace.list).
type TraceStatus struct {
	File    string    `json:"file"` // its path
	Agents  []string  `json:"agents,omitempty"`
	Started time.Time `json:"started"`
}

// TraceStopResult answers trace.stop: the trace that ended.
type TraceStopResult struct {
	File  string `json:"file"`
	Steps int    `json:"steps"`
	Bytes int64  `json:"bytes"`
	// Dropped counts the steps left out past twice trace.max_bytes.
	Dropped int `json:"dropped,omitempty"`
}

// TraceFile is one trace file of the data dir.
type TraceFile struct {
	Name     string    `json:"name"`
	Path     string    `json:"path"`
	Bytes    int64     `json:"bytes"`
	Modified time.Time `json:"modified"`
}

// TraceListResult answers trace.list: the trace files, newest first, and
// the trace being recorded (nil when none).
type TraceListResult struct {
	Traces    []TraceFile  `json:"traces"`
	Recording *TraceStatus `json:"recording,omitempty"`
}

// MethodPopupTrace is the popup's look at the trace being recorded: whom
// it traces, and, given an agent, a viewer page of its last steps.
const MethodPopupTrace = "popup.trace"

// PopupTraceParams are popup.trace's params.
type PopupTraceParams struct {
	// Agent asks for the HTML of this agent's last steps; "" asks only
	// whom the trace records.
	Agent string `json:"agent,omitempty"`
	// Last is how many steps (default 10, at most 50).
	Last int `json:"last,omitempty"`
}

// PopupTraceResult answers popup.trace.
type PopupTraceResult struct {
	Recording *TraceStatus `json:"recording"` // nil when no trace records
	// HTML is the viewer page (trace show's) of the agent's last steps.
	HTML  string `json:"html,omitempty"`
	Steps int    `json:"steps,omitempty"`
}
