package hub

import (
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/refmap"
)

// RefsFile (in the data dir) holds the first ref number the next service
// may hand out.
const RefsFile = "refs-next"

// refCounter continues the ref numbers where the last service reserved
// them, so no ref is ever given to two elements, across relay reconnects
// and service restarts.
func refCounter(path string, log *slog.Logger) *refmap.Counter {
	var start uint64 = 1
	if b, err := os.ReadFile(path); err == nil {
		if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
			start = v
		}
	}
	return refmap.NewReservedCounter(start, func(upTo uint64) {
		if err := privfile.Write(path, []byte(strconv.FormatUint(upTo, 10)+"\n")); err != nil {
			log.Warn("reserve ref numbers", "err", err)
		}
	})
}
