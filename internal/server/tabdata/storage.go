package tabdata

import (
	"cmp"
	"context"

	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// StorageGet is storage.get: it reads the localStorage or sessionStorage
// of a tab's main frame (page.ReadStorage: in egohost's isolated world,
// which the page's scripts cannot change). Like cookies, what it reads
// may be credentials: it needs act.
func (m *Methods) StorageGet(ctx context.Context, c Call, p protocol.StorageGetParams) (any, error) {
	if err := p.Check(protocol.MethodStorageGet); err != nil {
		return nil, err
	}
	kind := cmp.Or(p.Kind, "local")
	tab, err := c.Tab(ctx, p.Target, "storage.get")
	if err != nil {
		return nil, err
	}
	if err := tab.CheckDialog("storage.get"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.actionTimeout)
	defer cancel()
	origin, items, err := tab.ReadStorage(ctx, kind, p.Name)
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	return protocol.StorageGetResult{Tab: tab.ID(), Origin: origin, Kind: kind, Items: items}, nil
}
