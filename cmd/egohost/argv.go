package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// argv is a verb's command line after the common flags: the verb takes its
// own flags with flag/boolean/int, then its positional args with rest,
// which refuses any flag nobody took.
type argv struct {
	args    []string
	err     error
	timeout time.Duration // --timeout, taken by callVerb (0 = not given)
}

// timeoutMs is --timeout in milliseconds (0 = the service's default), for
// the verbs whose params carry a timeoutMs.
func (a *argv) timeoutMs() int { return int(a.timeout.Milliseconds()) }

// flag takes "--name VALUE" or "--name=VALUE" (aliases allowed).
func (a *argv) flag(names ...string) string {
	val := ""
	for _, n := range names {
		var v string
		v, a.args = takeFlag(a.args, n)
		if v != "" {
			val = v
		}
	}
	return val
}

// boolean takes "--name" (aliases allowed, e.g. "-i").
func (a *argv) boolean(names ...string) bool {
	found := false
	for _, n := range names {
		var f bool
		f, a.args = takeBool(a.args, n)
		found = found || f
	}
	return found
}

// int takes "--name N"; a value that is not a whole number is an error.
func (a *argv) int(name string) int {
	v := a.flag(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil && a.err == nil {
		a.err = usageError(fmt.Sprintf("%s %q is not a whole number", name, v))
	}
	return n
}

// rest returns the positional args; an unknown flag or an earlier bad
// value is an error. A lone "--" ends the flags (for values starting with -).
func (a *argv) rest(usage string) ([]string, error) {
	if a.err != nil {
		return nil, a.err
	}
	var out []string
	for i, s := range a.args {
		if s == "--" {
			return append(out, a.args[i+1:]...), nil
		}
		if strings.HasPrefix(s, "-") && len(s) > 1 && !isNumber(s) {
			return nil, usageError(fmt.Sprintf("unknown flag %s (usage: egohost %s)", s, usage))
		}
		out = append(out, s)
	}
	return out, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// exactly returns the positional args when there are n of them, else a
// usage error saying how to call the verb.
func (a *argv) exactly(n int, usage string) ([]string, error) {
	args, err := a.rest(usage)
	if err != nil {
		return nil, err
	}
	if len(args) != n {
		return nil, usageError("usage: egohost " + usage)
	}
	return args, nil
}
