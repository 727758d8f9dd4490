package service

// pageHandlers are the methods that work on a tab's page: snapshots,
// resolution and actions.
func (s *Service) pageHandlers() map[string]handler {
	return map[string]handler{}
}
