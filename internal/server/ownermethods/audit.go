package ownermethods

import (
	"context"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// AuditTail returns the last calls from the audit log.
func (m *Methods) AuditTail(ctx context.Context, _ Call, p protocol.AuditTailParams) (any, error) {
	f, err := audit.TailFilter(p)
	if err != nil {
		return nil, err
	}
	read, err := audit.Scan(m.s.AuditPath(), f)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "audit.tail: %v", err)
	}
	if read.Entries == nil {
		read.Entries = []audit.Entry{}
	}
	return protocol.AuditTailResult{Entries: read.Entries, Skipped: read.Skipped}, nil
}
