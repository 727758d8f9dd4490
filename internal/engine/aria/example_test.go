package aria_test

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
)

// A call and its install protocol: the first call in a new world answers
// that the world lacks the module; the call goes again with the module and
// the function; later calls send neither.
func Example() {
	roleOf := aria.Keep(`(el, ns, sel) => ns.view(el).role(el.querySelector(sel))`)
	arg := json.RawMessage(`"button"`)
	// evaluate stands for Runtime.evaluate in egohost's world of a frame
	// that no call has used yet.
	installed := false
	evaluate := func(expr string, in aria.Install) *runtime.RemoteObject {
		if !installed && in != aria.InstallModule {
			return &runtime.RemoteObject{Type: runtime.RemoteObjectTypeString, Value: []byte(strconv.Quote(aria.MissingModule))}
		}
		installed = true
		return &runtime.RemoteObject{Type: runtime.RemoteObjectTypeString, Value: []byte(`"button"`)}
	}
	for _, call := range []string{"first", "second"} {
		for in := aria.InstallNone; ; {
			res := evaluate(roleOf.Expr(in, arg), in)
			next, again := roleOf.Again(in, res)
			if !again {
				fmt.Printf("%s call: %s (sent with install level %d)\n", call, res.Value, in)
				break
			}
			in = next
		}
	}
	// Output:
	// first call: "button" (sent with install level 2)
	// second call: "button" (sent with install level 0)
}
