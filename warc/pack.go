package warc

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// The compressor is klauspost/compress's, not the standard library's: at
// the default level it writes members of the same size, and for the small
// records of a mirror (a request, a 4 KiB file) it takes a twentieth to a
// half of the time, most of which the standard library spends building
// the Huffman tables of a member that has few bytes to share them.

// recordEnd is the two CRLFs that end a record (WARC 1.1 §4).
const recordEnd = "\r\n\r\n"

// A packer turns one record into the bytes the file gets: its gzip
// member (WARC 1.1 Annex D.2: one member per record), or its plain
// header, block and end; for a spooled block, what goes before the spool
// (buf) and after it (tail).
type packer struct {
	buf, tail bytes.Buffer
	zw        *gzip.Writer
	fw        *flate.Writer
}

// maxPooled bounds the buffer a packer keeps between records.
const maxPooled = 4 << 20

// getPacker takes a free packer of w's, or makes one. The Writer keeps
// its packers rather than a sync.Pool, which every garbage collection
// empties: a compressor's state is costly to make, and remade after each
// collection it cost more than the records it packed.
func (w *Writer) getPacker() *packer {
	select {
	case p := <-w.packers:
		return p
	default:
		return new(packer)
	}
}

// putPacker gives p back for the next record, or drops it when as many
// are kept as there are processors.
func (w *Writer) putPacker(p *packer) {
	if p.buf.Cap() > maxPooled {
		p.buf = bytes.Buffer{}
	}
	select {
	case w.packers <- p:
	default:
	}
}

// gzip returns p's gzip compressor, writing a new member to dst.
func (p *packer) gzip(dst io.Writer) *gzip.Writer {
	if p.zw == nil {
		p.zw = gzip.NewWriter(dst)
	} else {
		p.zw.Reset(dst)
	}
	return p.zw
}

// flate returns p's raw deflate compressor (RFC 1951), writing to dst.
func (p *packer) flate(dst io.Writer) *flate.Writer {
	if p.fw == nil {
		p.fw, _ = flate.NewWriter(dst, flate.DefaultCompression)
	} else {
		p.fw.Reset(dst)
	}
	return p.fw
}

// gzipHeader begins a member spliced from pieces (RFC 1952 §2.3): deflate,
// no flags, no time, default level, unknown system, as the gzip.Writer
// begins the others.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// pack appends r to p's buffer as the file will hold it (and puts into
// p's tail what follows a spooled block), its header naming the warcinfo
// infoID, and returns its entry without its place in a file.
func (r *Record) pack(p *packer, infoID string, compress bool) (Entry, error) {
	e, head, err := r.entry(infoID)
	if err != nil {
		return e, err
	}
	p.tail.Reset()
	switch {
	case r.sp == nil && !compress:
		p.buf.WriteString(head)
		p.buf.Write(r.buf.Bytes())
		p.buf.WriteString(recordEnd)
	case r.sp == nil:
		// Writing to a bytes.Buffer does not fail.
		zw := p.gzip(&p.buf)
		io.WriteString(zw, head)
		zw.Write(r.buf.Bytes())
		io.WriteString(zw, recordEnd)
		err = zw.Close()
	case !compress:
		p.buf.WriteString(head)
		p.tail.WriteString(recordEnd)
	default:
		// One member spliced from three deflate streams (RFC 1951
		// §3.2.3): the header, ended by a sync flush, which leaves it
		// on a byte boundary without a final block; the block, spooled
		// and ended the same way; and the record's end, with the
		// final block. None refers back to another's bytes, so each
		// decodes as the next part of one stream; the trailer's CRC-32
		// is of the three (RFC 1952 §2.3.1), put together from theirs.
		p.buf.Write(gzipHeader[:])
		fw := p.flate(&p.buf)
		io.WriteString(fw, head)
		if err = fw.Flush(); err != nil {
			return e, err
		}
		fw = p.flate(&p.tail)
		io.WriteString(fw, recordEnd)
		if err = fw.Close(); err != nil {
			return e, err
		}
		crc := crc32.ChecksumIEEE([]byte(head))
		crc = crc32Combine(crc, r.sp.crc, r.n)
		crc = crc32Combine(crc, crc32.ChecksumIEEE([]byte(recordEnd)), int64(len(recordEnd)))
		size := uint32(int64(len(head)) + r.n + int64(len(recordEnd))) // ISIZE: modulo 2^32
		p.tail.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc), size))
	}
	return e, err
}

// spool is a block past the Writer's bound on its way to a temporary
// file in the archive's own directory (the same file system, where the
// archive has room), unlinked at once so that nothing is left behind by
// a run that dies. For a compressed archive it holds the block already
// deflated, compressed as it arrives by the goroutine that writes it,
// so that Commit copies it into the archive file to file.
type spool struct {
	f   *os.File
	p   *packer       // the compressor's, nil for a plain archive
	fw  *flate.Writer // the block's deflate stream, nil for a plain archive
	crc uint32        // CRC-32 of the block's bytes, for the member's trailer
}

// newSpool starts a spool for a record of w's.
func (w *Writer) newSpool() (*spool, error) {
	f, err := os.CreateTemp(w.dir, ".warc-spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	sp := &spool{f: f}
	if !w.opt.NoCompression {
		sp.p = w.getPacker()
		sp.fw = sp.p.flate(f)
	}
	return sp, nil
}

// write adds bytes of the block.
func (sp *spool) write(b []byte) error {
	if sp.fw == nil {
		_, err := sp.f.Write(b)
		return err
	}
	sp.crc = crc32.Update(sp.crc, crc32.IEEETable, b)
	_, err := sp.fw.Write(b)
	return err
}

// finish ends the block's stream without a final block, and goes back to
// the spool's start.
func (sp *spool) finish() error {
	if sp.fw != nil {
		if err := sp.fw.Flush(); err != nil {
			return err
		}
	}
	_, err := sp.f.Seek(0, io.SeekStart)
	return err
}

// close frees the spool's file and gives its compressor back.
func (sp *spool) close(w *Writer) {
	sp.f.Close()
	if sp.p != nil {
		w.putPacker(sp.p)
		sp.p, sp.fw = nil, nil
	}
}

// crc32Combine returns the CRC-32 (IEEE) of a‖b from crcA, crcB and the
// length of b, as zlib's crc32_combine does: crcA is carried through
// lenB zero bytes by squaring the matrix of the one-zero-bit operator
// over GF(2), once per bit of lenB, then crcB is added.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four
	for {
		// The first square makes the operator for one zero byte.
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

// gf2Times multiplies the vector vec by the matrix mat over GF(2).
func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

// gf2Square sets sq to mat times mat.
func gf2Square(sq, mat *[32]uint32) {
	for n := range sq {
		sq[n] = gf2Times(mat, mat[n])
	}
}
