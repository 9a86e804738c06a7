// Lists the records of WARC files as the npm package warcio parses them,
// one JSON object a line: the WARC header fields the tests compare, the
// HTTP status of a response, and the payload (WARC 1.1 §5.9: a resource's
// whole block, a response's entity after its header section) as warcio's
// reader gives it, in base64, with its sha1 computed here rather than read
// from the record's header.
//
// node warcio-records.mjs WARCIO_DIST_DIR FILE...
// WARCIO_DIST_DIR is the package's dist directory (where its cli.js is).
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [dist, ...files] = process.argv.slice(2);
const { WARCParser } = await import(pathToFileURL(path.join(dist, "index.js")).href);

const fields = ["WARC-Type", "WARC-Target-URI", "WARC-Record-ID", "WARC-Payload-Digest", "WARC-Block-Digest",
	"Content-Type", "WARC-Concurrent-To", "WARC-Refers-To", "WARC-Refers-To-Target-URI", "WARC-Truncated",
	"WARC-Profile", "WARC-IP-Address"];

for (const file of files) {
	const parser = new WARCParser(createReadStream(file));
	for await (const record of parser) {
		const out = { file: path.basename(file), offset: parser.offset };
		for (const f of fields) {
			const v = record.warcHeaders.headers.get(f);
			if (v !== null && v !== undefined) out[f.toLowerCase()] = v;
		}
		if (record.httpHeaders && out["warc-type"] === "response") {
			out.status = String(record.httpHeaders.statusCode);
			const te = record.httpHeaders.headers.get("transfer-encoding");
			if (te) out["transfer-encoding"] = te;
			const cl = record.httpHeaders.headers.get("content-length");
			if (cl) out["http-content-length"] = cl;
		}
		const payload = await record.readFully(false);
		out.sha1 = createHash("sha1").update(payload).digest("hex");
		out.payload = Buffer.from(payload).toString("base64");
		process.stdout.write(JSON.stringify(out) + "\n");
	}
}
