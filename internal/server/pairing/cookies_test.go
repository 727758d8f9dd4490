package pairing

import (
	"encoding/json"
	"testing"
)

func TestForeignCookies(t *testing.T) {
	const tab = "https://shop.example.com/cart"
	tests := []struct {
		method, params string
		ok             bool
	}{
		{"Network.getCookies", `{"urls":["https://shop.example.com/"]}`, true},
		{"Network.getCookies", `{"urls":["http://SHOP.example.com/x"]}`, true},
		{"Network.getCookies", `{"urls":["https://shop.example.com/","https://bank.example/"]}`, false},
		{"Network.getCookies", `{"urls":["https://bank.example\\@shop.example.com/"]}`, false},
		{"Network.getCookies", `{"urls":["https://shop.example.com.evil.example/"]}`, false},
		{"Network.getCookies", `{}`, false},
		{"Network.getCookies", `{"urls":[]}`, false},
		{"Network.setCookie", `{"name":"a","value":"b","domain":"example.com"}`, true},
		{"Network.setCookie", `{"name":"a","value":"b","domain":".shop.example.com"}`, true},
		{"Network.setCookie", `{"name":"a","value":"b","domain":"xample.com"}`, false},
		{"Network.setCookie", `{"name":"a","value":"b","domain":"bank.example"}`, false},
		{"Network.setCookie", `{"name":"a","value":"b"}`, false},
		{"Network.setCookie", `{"name":"a","value":"b","url":"https://bank.example/","domain":"example.com"}`, false},
		{"Network.setCookies", `{"cookies":[{"name":"a","value":"b","url":"https://shop.example.com/"},{"name":"c","value":"d","domain":"bank.example"}]}`, false},
		{"Network.setCookies", `{"cookies":[{"name":"a","value":"b","url":"https://shop.example.com/"}]}`, true},
		{"Network.deleteCookies", `{"name":"sid","domain":"bank.example"}`, false},
		{"Network.deleteCookies", `{"name":"sid","url":"https://shop.example.com/"}`, true},
	}
	for _, tt := range tests {
		why := ForeignCookies(tt.method, json.RawMessage(tt.params), tab)
		if (why == "") != tt.ok {
			t.Errorf("%s %s: got %q, want ok %v", tt.method, tt.params, why, tt.ok)
		}
	}
	if why := ForeignCookies("Network.getCookies", json.RawMessage(`{"urls":["about:blank"]}`), "about:blank"); why == "" {
		t.Error("cookies on about:blank: want refused")
	}
}
