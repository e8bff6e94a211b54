/** A multipart/form-data body as browsers and curl send it (values and files), for t.request. */
export function multipart(parts: Array<[name: string, value: string] | [name: string, value: string, filename: string]>): {
  body: string;
  headers: Record<string, string>;
} {
  const boundary = `----scent-test-${Math.random().toString(16).slice(2)}`;
  const chunks = parts.map(([name, value, filename]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/xml` : ''}\r\n\r\n${value}\r\n`);
  return { body: `${chunks.join('')}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** An application/x-www-form-urlencoded body (an IdP's HTTP-POST binding), for t.request. */
export function urlencoded(values: Record<string, string>): { body: string; headers: Record<string, string> } {
  return { body: new URLSearchParams(values).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}
