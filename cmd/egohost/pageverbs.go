package main

// pageVerbs are the verbs that work on a tab's page: snapshots,
// resolution and actions.
func pageVerbs() map[string]verb {
	return map[string]verb{}
}
