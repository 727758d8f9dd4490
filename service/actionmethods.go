package service

// actionHandlers are the actions, waits and navigation methods.
func (s *Service) actionHandlers() map[string]handler {
	return map[string]handler{}
}
