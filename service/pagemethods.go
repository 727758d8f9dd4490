package service

// pageHandlers are the methods that work on a tab's page: snapshots
// (snapshotmethods.go), resolution (resolvemethods.go) and actions
// (actionmethods.go).
func (s *Service) pageHandlers() map[string]handler {
	all := make(map[string]handler)
	for _, group := range []map[string]handler{s.snapshotHandlers(), s.resolveHandlers(), s.actionHandlers()} {
		for name, h := range group {
			all[name] = h
		}
	}
	return all
}
