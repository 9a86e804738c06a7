package warc

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTargetURI is the error for a request, response, resource or revisit
// record begun without a WARC-Target-URI, which WARC 1.1 §5.14 requires
// of them.
var ErrTargetURI = errors.New("warc: record has no WARC-Target-URI")

// ErrRevisitDigest is the error for a revisit record of the
// identical-payload-digest profile begun without the payload digest it
// was found by, which WARC 1.1 §6.7.2 requires of it.
var ErrRevisitDigest = errors.New("warc: identical-payload-digest revisit has no WARC-Payload-Digest")

// ErrDefinedField is the error for a Header.Fields entry that names a
// field the writer writes from the Header itself: a WARC record holds
// each field once (WARC 1.1 §5.1), WARC-Filename only in a warcinfo
// record (§5.17), and this package writes no segmented records (§7:
// segmentation only where a record cannot start a file of its own).
var ErrDefinedField = errors.New("warc: field is one the writer writes")

// definedFields are the WARC 1.1 §4 defined-field names a caller may not
// give in Header.Fields, lower case; WARC-Identified-Payload-Type (§5.19)
// is the one a caller may add.
var definedFields = map[string]bool{
	"warc-type": true, "warc-record-id": true, "warc-date": true,
	"content-length": true, "content-type": true, "warc-concurrent-to": true,
	"warc-block-digest": true, "warc-payload-digest": true,
	"warc-ip-address": true, "warc-refers-to": true,
	"warc-refers-to-target-uri": true, "warc-refers-to-date": true,
	"warc-target-uri": true, "warc-truncated": true, "warc-warcinfo-id": true,
	"warc-filename": true, "warc-profile": true, "warc-segment-origin-id": true,
	"warc-segment-number": true, "warc-segment-total-length": true,
}

// checkHeader refuses a header that would make a record WARC 1.1 does not
// allow: what the writer cannot make right on its own.
func checkHeader(h *Header) error {
	switch h.Type {
	case Request, Response, Resource, Revisit:
		if h.TargetURI == "" {
			return fmt.Errorf("%w: a %s record", ErrTargetURI, h.Type)
		}
	}
	if h.Type == Revisit && revisitProfile(h) == ProfileIdenticalPayload && h.PayloadDigest == "" {
		return ErrRevisitDigest
	}
	for _, f := range h.Fields {
		if definedFields[strings.ToLower(f.Name)] {
			return fmt.Errorf("%w: %q", ErrDefinedField, f.Name)
		}
	}
	return nil
}

// revisitProfile is the WARC-Profile a revisit is written with.
func revisitProfile(h *Header) string {
	if h.Profile == "" {
		return ProfileIdenticalPayload
	}
	return h.Profile
}

// hasPayload tells whether records of type t have a payload, and so a
// WARC-Payload-Digest: WARC 1.1 §4 gives none to warcinfo and metadata
// records, and §5.9 allows the field only where there is one.
func hasPayload(t Type) bool {
	return t != Warcinfo && t != Metadata
}

// conformBlock marks, once the block is whole, what WARC 1.1 asks of a
// record given its block: a revisit of the identical-payload-digest
// profile that holds a block (the response's header section) is the
// response truncated to leave the known payload out, which §6.7.2 says
// "shall" be marked WARC-Truncated: length, as wget marks it.
func conformBlock(h *Header, n int64) {
	if h.Type == Revisit && n > 0 && h.Truncated == "" && revisitProfile(h) == ProfileIdenticalPayload {
		h.Truncated = TruncatedLength
	}
}
