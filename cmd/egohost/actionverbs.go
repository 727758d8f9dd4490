package main

// actionVerbs are the actions, waits and navigation verbs.
func actionVerbs() map[string]verb {
	return map[string]verb{}
}
