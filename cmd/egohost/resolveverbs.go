package main

func resolveVerbs() map[string]verb {
	return map[string]verb{}
}
