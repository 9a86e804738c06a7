package mirror

import "io"

// Robots is a parsed robots.txt (RFC 9309): the rules of the group that
// applies to one user agent.
type Robots struct {
	rules []rule
}

type rule struct {
	allow   bool
	pattern string
}

// ParseRobots reads a robots.txt for the user agent agent. (Skeleton.)
func ParseRobots(r io.Reader, agent string) *Robots { return &Robots{} }

// Allowed reports whether path (with its query, %-encoded as sent) may be
// fetched. A nil Robots allows everything.
func (r *Robots) Allowed(path string) bool { return true }
