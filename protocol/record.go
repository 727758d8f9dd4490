package protocol

// What the service records of each followed tab (console messages,
// uncaught exceptions, network requests) and the tab's cookies.
const (
	MethodConsoleList = "console.list" // ConsoleListParams → ConsoleListResult
	MethodNetworkList = "network.list" // NetworkListParams → NetworkListResult
	// MethodNetworkRequest is one recorded request's headers and bodies.
	MethodNetworkRequest = "network.request" // NetworkRequestParams → NetworkRequestResult
	// MethodStorageGet reads the page's localStorage or sessionStorage.
	MethodStorageGet   = "storage.get"   // StorageGetParams → StorageGetResult
	MethodCookiesGet   = "cookies.get"   // CookiesGetParams → CookiesResult
	MethodCookiesSet   = "cookies.set"   // CookiesSetParams → CookiesResult
	MethodCookiesClear = "cookies.clear" // CookiesClearParams → CookiesClearResult
)

// ConsoleListParams are the params of console.list.
type ConsoleListParams struct {
	Target
	// Level keeps messages of this level and more severe: debug (the
	// default: every message), info, warning, error.
	Level string `json:"level,omitempty"`
	// Clear empties the tab's buffer after reading it.
	Clear bool `json:"clear,omitempty"`
}

// ConsoleMessage is one console message or uncaught exception.
type ConsoleMessage struct {
	// Level is debug, info, warning or error.
	Level string `json:"level"`
	// Type is the console call (log, info, warning, error, debug, assert,
	// …) or "exception" for an uncaught exception.
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int    `json:"line,omitempty"` // 1-based
	// Time is the page's timestamp, in milliseconds since the epoch.
	Time float64 `json:"time"`
}

// ConsoleListResult answers console.list, oldest first.
type ConsoleListResult struct {
	Tab      int              `json:"tab"`
	Messages []ConsoleMessage `json:"messages"`
	// Dropped counts the messages the ring buffer lost to newer ones.
	Dropped int `json:"dropped"`
}

// NetworkListParams are the params of network.list.
type NetworkListParams struct {
	Target
	// Static includes images, fonts, style sheets, scripts and media.
	Static bool `json:"static,omitempty"`
	// Clear empties the tab's buffer after reading it.
	Clear bool `json:"clear,omitempty"`
}

// NetworkRequest is one request of the tab.
type NetworkRequest struct {
	// ID numbers the tab's requests from 1, in the order they were sent;
	// network.request takes it. It is never reused, also after a clear.
	ID     int    `json:"id"`
	Method string `json:"method"`
	URL    string `json:"url"`
	// Type is Chrome's resource type: Document, XHR, Fetch, Script, …
	Type       string `json:"type,omitempty"`
	Status     int    `json:"status,omitempty"` // 0 until the response came
	StatusText string `json:"statusText,omitempty"`
	MimeType   string `json:"mimeType,omitempty"`
	// Failed is Chrome's error text (net::ERR_…) when the request failed.
	Failed string `json:"failed,omitempty"`
	// Bytes is the encoded size received, once finished.
	Bytes    int64 `json:"bytes,omitempty"`
	Finished bool  `json:"finished,omitempty"`
	// Time is when the request was sent, in milliseconds since the epoch.
	Time float64 `json:"time"`
}

// NetworkListResult answers network.list, oldest first.
type NetworkListResult struct {
	Tab      int              `json:"tab"`
	Requests []NetworkRequest `json:"requests"`
	Dropped  int              `json:"dropped"`
}

// NetworkRequestParams are the params of network.request.
type NetworkRequestParams struct {
	Target
	// ID is the request's id in network.list.
	ID int `json:"id"`
	// Body also fetches the request's body (its post data) and the
	// response's body from Chrome, while it still holds them.
	Body bool `json:"body,omitempty"`
	// MaxBytes caps each body (default 64 KiB, at most 1 MiB).
	MaxBytes int `json:"maxBytes,omitempty"`
}

// NetworkRequestResult answers network.request.
type NetworkRequestResult struct {
	Tab     int            `json:"tab"`
	Request NetworkRequest `json:"request"`
	// RequestHeaders are the headers the page's request was sent with
	// (those Chrome adds on the way, as cookies, are not seen here).
	RequestHeaders map[string]string `json:"requestHeaders"`
	// ResponseHeaders are the response's, once it came.
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
	// RequestBody and ResponseBody are there with body: true.
	RequestBody  *Body `json:"requestBody,omitempty"`
	ResponseBody *Body `json:"responseBody,omitempty"`
}

// Body is a request's or a response's body: text, or base64 for bytes
// that are not text; Bytes is its whole length, Cut what was left out past
// the cap. Missing says why there is none (no body, not kept by Chrome).
type Body struct {
	Text    string `json:"text,omitempty"`
	Base64  bool   `json:"base64,omitempty"`
	Bytes   int    `json:"bytes"`
	Cut     int    `json:"cut,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// StorageGetParams are the params of storage.get.
type StorageGetParams struct {
	Target
	// Kind is local (default) or session.
	Kind string `json:"kind,omitempty"`
	// Name reads the item with this key only.
	Name string `json:"name,omitempty"`
}

// StorageGetResult answers storage.get: the items of the main frame's
// origin, in key order.
type StorageGetResult struct {
	Tab    int           `json:"tab"`
	Origin string        `json:"origin"`
	Kind   string        `json:"kind"`
	Items  []StorageItem `json:"items"`
}

// StorageItem is one key and value of a page's storage. Length is the
// value's length as the page counts it (UTF-16 units); Cut says that
// Value holds only its first 65,536.
type StorageItem struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Length int    `json:"length"`
	Cut    bool   `json:"cut,omitempty"`
}

// Cookie is a cookie of the browser's profile.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires,omitempty"` // seconds since the epoch; 0: a session cookie
	HTTPOnly bool    `json:"httpOnly,omitempty"`
	Secure   bool    `json:"secure,omitempty"`
	SameSite string  `json:"sameSite,omitempty"` // Strict, Lax, None
}

// CookiesGetParams are the params of cookies.get: the cookies the tab's
// URL would send (Name keeps one).
type CookiesGetParams struct {
	Target
	Name string `json:"name,omitempty"`
}

// CookiesResult answers cookies.get and cookies.set.
type CookiesResult struct {
	Tab     int      `json:"tab"`
	URL     string   `json:"url"`
	Cookies []Cookie `json:"cookies"`
}

// CookiesSetParams are the params of cookies.set: one cookie for the
// tab's URL (Domain and Path default to the URL's).
type CookiesSetParams struct {
	Target
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain,omitempty"`
	Path     string  `json:"path,omitempty"`
	Expires  float64 `json:"expires,omitempty"`
	HTTPOnly bool    `json:"httpOnly,omitempty"`
	Secure   bool    `json:"secure,omitempty"`
	SameSite string  `json:"sameSite,omitempty"`
}

// CookiesClearParams are the params of cookies.clear: the tab's URL's
// cookies (Name: only that one).
type CookiesClearParams struct {
	Target
	Name string `json:"name,omitempty"`
}

// CookiesClearResult answers cookies.clear.
type CookiesClearResult struct {
	Tab     int    `json:"tab"`
	URL     string `json:"url"`
	Deleted int    `json:"deleted"`
}
