package typeerror

func n() int { return "one" }
