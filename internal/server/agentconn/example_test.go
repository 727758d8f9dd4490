package agentconn_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/egohost/egohost/internal/server/agentconn"
)

// A web page's request is refused before its token is looked at.
func ExampleAuthorize() {
	r := httptest.NewRequest("GET", "http://127.0.0.1:9300/", nil)
	r.Header.Set("Authorization", "Bearer the-token")
	fmt.Println(agentconn.Authorize(r, "the-token") == nil)
	r.Header.Set("Origin", "https://example.com")
	fmt.Println(agentconn.Authorize(r, "the-token").Code.Name())
	// Output:
	// true
	// forbidden_origin
}
