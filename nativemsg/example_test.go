package nativemsg_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/egohost/egohost/nativemsg"
)

func Example() {
	var stream bytes.Buffer // stands for stdout, or a socket

	w := nativemsg.NewWriter(&stream, nativemsg.MaxHostFrame)
	_ = w.Write([]byte(`{"op":"ping","id":1}`))
	_ = w.Write([]byte(`{"id":1,"result":{"pong":true}}`))
	err := w.Write(make([]byte, nativemsg.MaxHostFrame+1))
	fmt.Println("oversized:", errors.Is(err, nativemsg.ErrFrameTooLarge))

	r := nativemsg.NewReader(&stream, 64<<20)
	for {
		msg, err := r.Read()
		if err == io.EOF {
			break // clean end, at a frame boundary
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s\n", msg)
	}
	// Output:
	// oversized: true
	// {"op":"ping","id":1}
	// {"id":1,"result":{"pong":true}}
}
