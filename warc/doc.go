// Package warc writes WARC 1.1 files (ISO 28500:2017) as the web-archiving
// tools read them: one gzip member per record, sha1 base32 digests, a
// warcinfo record at the head of every file, and wget's CDX and pywb's
// CDXJ indexes beside them.
//
// A [Writer] owns one archive name and the numbered files it rolls over
// to; each record is begun with [Writer.Begin], its block written into it
// as the bytes arrive (held in memory while small, spooled to a temporary
// file in the archive's directory past a bound) and appended whole by
// [Record.Commit], so that an interrupted run leaves at most one truncated
// record at the end of a file. [ReadCDX] reads a CDX file, ours or
// wget's, for the revisit records of an incremental archive, and [Reader]
// reads a WARC file back.
//
// The specification: https://iipc.github.io/warc-specifications/
package warc
