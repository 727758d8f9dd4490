package agentconn

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/coder/websocket"
)

// Accept upgrades an agent's HTTP request, checked already, to its
// WebSocket connection. On error, Accept has written the HTTP answer.
func Accept(w http.ResponseWriter, r *http.Request, log *slog.Logger) (*Conn, error) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil, fmt.Errorf("accept the agent's WebSocket: %w", err)
	}
	return newConn(ws, log), nil
}
