package protocol

// The checks of the record methods' params that need nothing but the
// params (see pagecheck.go): what the service refuses (CodeInvalidParams)
// before it looks for a tab.

// Check checks storage.get's params: kind is local (or empty: local) or
// session.
func (p StorageGetParams) Check(op string) error {
	switch p.Kind {
	case "", "local", "session":
		return nil
	}
	return Errorf(CodeInvalidParams, "%s: kind %q is not local or session", op, p.Kind)
}

// Check checks cookies.set's params: a name, and a sameSite Chrome knows
// (or none).
func (p CookiesSetParams) Check(op string) error {
	if p.Name == "" {
		return Errorf(CodeInvalidParams, "%s needs a name", op)
	}
	switch p.SameSite {
	case "", "Strict", "Lax", "None":
		return nil
	}
	return Errorf(CodeInvalidParams, "%s: sameSite %q is not Strict, Lax or None", op, p.SameSite)
}
