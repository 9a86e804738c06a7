package mirror

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/schemes"
)

// item is one URL waiting in a run's queue, with what its listing said of
// it (for --timestamping) and where the recursion stands.
type item struct {
	url   string       // absolute, without fragment
	depth int          // links followed from the start URL
	start int          // index of the start URL it descends from
	kind  schemes.Kind // what the listing said it is; KindOther when unknown
	size  int64        // size the listing gave, -1 when none
	mod   time.Time    // time the listing gave, zero when none
	path  string       // local path decided by the parent (newsgroup articles), "" for the layout's
}

// memQueue is how many items a queue holds in memory before it writes
// further ones to a temporary file: about 200 bytes each, so under a MiB
// however large the remote tree.
const memQueue = 4096

// queue is a first-in first-out queue of items whose memory is bounded:
// items beyond memQueue go to a temporary file and come back in order
// once the ones before them are taken, so that a recursion over a tree of
// any size holds a bounded part of it at a time.
type queue struct {
	mem     []item
	head    int
	spill   *os.File      // items after mem's, in order; nil until needed
	w       *bufio.Writer // appends to spill
	r       *bufio.Reader // reads spill from where taking stands
	written int64         // items written to spill
	read    int64         // items read back
}

func (q *queue) len() int64 { return int64(len(q.mem)-q.head) + q.written - q.read }

// push appends it.
func (q *queue) push(it item) error {
	if q.written == q.read && len(q.mem)-q.head < memQueue {
		if q.head >= memQueue/2 || q.head > 0 && q.head == len(q.mem) {
			// Move what is left to the front, so that a queue taken
			// from as fast as it is added to does not grow its array.
			n := copy(q.mem, q.mem[q.head:])
			clear(q.mem[n:])
			q.mem, q.head = q.mem[:n], 0
		}
		q.mem = append(q.mem, it)
		return nil
	}
	if q.spill == nil {
		f, err := os.CreateTemp("", "urlget-queue-")
		if err != nil {
			return err
		}
		// Unlinked at once: the file goes with the process, however it ends.
		os.Remove(f.Name())
		q.spill, q.w = f, bufio.NewWriterSize(&appender{f: f}, 64<<10)
		q.r = bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 64<<10)
	}
	q.written++
	_, err := q.w.WriteString(encodeItem(it))
	return err
}

// peek returns the first item without taking it; false when the queue
// is empty.
func (q *queue) peek() (item, bool, error) {
	if err := q.fill(); err != nil || q.head == len(q.mem) {
		return item{}, false, err
	}
	return q.mem[q.head], true, nil
}

// pop takes the first item; false when the queue is empty.
func (q *queue) pop() (item, bool, error) {
	if err := q.fill(); err != nil || q.head == len(q.mem) {
		return item{}, false, err
	}
	it := q.mem[q.head]
	q.mem[q.head] = item{}
	q.head++
	return it, true, nil
}

// refill is how many items come back from the file at a time: enough
// that a worker's batch of one server's URLs (batchMax) is in memory to be
// seen whole, few enough to keep memory bounded.
const refill = memQueue / 4

// fill brings items back from the file into memory once memory holds
// none. Pushes go to the file while it holds items, so memory then holds
// the oldest items and the order stays first in, first out.
func (q *queue) fill() error {
	if q.head < len(q.mem) || q.read == q.written {
		return nil
	}
	q.mem, q.head = q.mem[:0], 0
	if err := q.w.Flush(); err != nil {
		return err
	}
	for len(q.mem) < refill && q.read < q.written {
		line, err := q.r.ReadString('\n')
		if err == io.EOF {
			// A bufio.Reader keeps the end of file its read-ahead met
			// in an earlier refill, when the file ended there, and
			// gives it back once before it reads again: the items
			// pushed since are on the file (flushed above), and the
			// rest of the line is read now.
			var rest string
			rest, err = q.r.ReadString('\n')
			line += rest
		}
		if err != nil {
			return err
		}
		q.read++
		it, err := decodeItem(line)
		if err != nil {
			return err
		}
		q.mem = append(q.mem, it)
	}
	if q.read == q.written {
		// Drained: start the file over so that it does not grow forever.
		q.read, q.written = 0, 0
		if err := q.spill.Truncate(0); err == nil {
			q.r.Reset(io.NewSectionReader(q.spill, 0, 1<<62))
			q.w.Reset(&appender{f: q.spill})
		}
	}
	return nil
}

// appender writes at the end of f, where the section reader reads from
// its start.
type appender struct {
	f   *os.File
	off int64
}

func (a *appender) Write(p []byte) (int, error) {
	n, err := a.f.WriteAt(p, a.off)
	a.off += int64(n)
	return n, err
}

func (q *queue) close() {
	if q.spill != nil {
		q.spill.Close()
	}
}

// encodeItem writes an item as one line of tab-separated fields; URLs
// hold no tab or line end (RFC 3986 §2), and local paths are made safe.
func encodeItem(it item) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(it.depth))
	b.WriteByte('\t')
	b.WriteString(strconv.Itoa(it.start))
	b.WriteByte('\t')
	b.WriteString(strconv.Itoa(int(it.kind)))
	b.WriteByte('\t')
	b.WriteString(strconv.FormatInt(it.size, 10))
	b.WriteByte('\t')
	if !it.mod.IsZero() {
		b.WriteString(strconv.FormatInt(it.mod.UnixNano(), 10))
	}
	b.WriteByte('\t')
	b.WriteString(strconv.Quote(it.path))
	b.WriteByte('\t')
	b.WriteString(it.url)
	b.WriteByte('\n')
	return b.String()
}

var errBadQueue = errors.New("the queue's temporary file is damaged")

func decodeItem(line string) (item, error) {
	f := strings.SplitN(strings.TrimSuffix(line, "\n"), "\t", 7)
	if len(f) != 7 {
		return item{}, errBadQueue
	}
	var it item
	var err [5]error
	it.depth, err[0] = strconv.Atoi(f[0])
	it.start, err[1] = strconv.Atoi(f[1])
	var k int
	k, err[2] = strconv.Atoi(f[2])
	it.kind = schemes.Kind(k)
	it.size, err[3] = strconv.ParseInt(f[3], 10, 64)
	if f[4] != "" {
		ns, e := strconv.ParseInt(f[4], 10, 64)
		it.mod, err[4] = time.Unix(0, ns), e
	}
	p, e := strconv.Unquote(f[5])
	it.path, it.url = p, f[6]
	if e != nil || errors.Join(err[:]...) != nil {
		return item{}, errBadQueue
	}
	return it, nil
}
