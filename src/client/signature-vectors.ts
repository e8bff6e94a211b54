/**
 * Published test vectors for the bhesignature scheme (also in README.md). Each: the inputs and the
 * expected `Signature` header. Checked by src/client/signature.test.ts against this package's
 * signer and against an independent implementation.
 */
export interface SignatureVector {
  name: string;
  key: string;
  method: string;
  target: string;
  requestDate: string;
  body: string;
  signature: string;
}

export const SIGNATURE_VECTORS: SignatureVector[] = [
  {
    name: 'GET, no query, empty body',
    key: 'c2NlbnQtdGVzdC1rZXktMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA==',
    method: 'GET',
    target: '/api/version',
    requestDate: '2026-01-02T03:04:05Z',
    body: '',
    signature: 'SGjC5O2udM83g5/Jgh3hUUQt4DCqOhYqmxSp7XgcVVI=',
  },
  {
    name: 'GET with an encoded query string',
    key: 'c2NlbnQtdGVzdC1rZXktMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA==',
    method: 'GET',
    target: '/api/v2/tokens?name=~eq:build%20bot&sort_by=-created_at',
    requestDate: '2026-01-02T03:59:59.123456789+02:00',
    body: '',
    signature: 'H2t4RZ3Byplp3Cyyz/vXpoRAwM/LjkuZBuos94OF+Mo=',
  },
  {
    name: 'POST with a JSON body',
    key: 'c2NlbnQtdGVzdC1rZXktMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA==',
    method: 'POST',
    target: '/api/v2/tokens',
    requestDate: '2026-01-02T03:00:00Z',
    body: '{"token_name":"ci"}',
    signature: 'XlIALto4DtRgSQyk+y9NsZEU7rGAyLnToMT9VMzlMMg=',
  },
];
