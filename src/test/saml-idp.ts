/**
 * An identity provider for the SAML tests, in process: its own RSA key and certificate, its metadata,
 * and SAML responses signed with `xml-crypto` (the XML-signature library node-saml itself verifies
 * with; dev dependency), built the way Entra ID / Okta build them. Every attack of saml.test.ts is a
 * variation of a real, correctly signed response.
 */
import { inflateRawSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { generateSpKeyPair, type SpKeyPair } from '../modules/saml/saml.keys.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const body = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

export interface AuthnRequestInfo {
  id: string;
  acs: string;
  issuer: string;
  destination: string;
}

export interface ResponseOptions {
  /** The request answered (InResponseTo); omitted = IdP-initiated. */
  inResponseTo?: string;
  /** The SP's ACS (Destination and Recipient) and entity id (Audience). */
  acs: string;
  audience: string;
  email: string;
  attributes?: Record<string, string[]>;
  /** What is signed: the assertion (default, as Entra ID), the response, both, or nothing. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /** Signs with another key (and embeds its certificate). */
  signer?: SpKeyPair;
  /** Validity window relative to now, ms (default -60 s … +5 min). */
  notBefore?: number;
  notOnOrAfter?: number;
  destination?: string;
  recipient?: string;
  assertionId?: string;
  issuer?: string;
}

export class SamlTestIdp {
  readonly keys = generateSpKeyPair('Scent test IdP');
  constructor(readonly entityId = `https://idp.test/${randomUUID()}`) {}

  /** Metadata as an IdP publishes it (Okta's shape): signing key, SSO by Redirect and POST. */
  metadata(opts: { redirect?: boolean; post?: boolean; cert?: string } = {}): string {
    const sso = `https://idp.test/sso`;
    return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${esc(this.entityId)}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${opts.cert ?? body(this.keys.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    ${opts.redirect === false ? '' : `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sso}/redirect"/>`}
    ${opts.post === false ? '' : `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${sso}/post"/>`}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  }

  /** The AuthnRequest a login redirect carries (HTTP-Redirect binding: deflated, base64). */
  readRedirect(location: string): AuthnRequestInfo {
    const raw = new URL(location).searchParams.get('SAMLRequest');
    if (!raw) throw new Error(`no SAMLRequest in ${location}`);
    return this.readRequestXml(inflateRawSync(Buffer.from(raw, 'base64')).toString('utf8'));
  }

  /** The AuthnRequest of a login page (HTTP-POST binding: the form's SAMLRequest, base64). */
  readPostForm(html: string): AuthnRequestInfo {
    const m = /name="SAMLRequest" value="([^"]+)"/.exec(html);
    if (!m) throw new Error('no SAMLRequest in the page');
    return this.readRequestXml(Buffer.from(m[1], 'base64').toString('utf8'));
  }

  private readRequestXml(xml: string): AuthnRequestInfo {
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
    const issuer = root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'Issuer')[0]?.textContent ?? '';
    return {
      id: root.getAttribute('ID')!, acs: root.getAttribute('AssertionConsumerServiceURL')!, issuer,
      destination: root.getAttribute('Destination')!,
    };
  }

  /** The unsigned Response XML. */
  responseXml(o: ResponseOptions): { xml: string; assertionId: string } {
    const assertionId = o.assertionId ?? `_a${randomUUID()}`;
    const issuer = esc(o.issuer ?? this.entityId);
    const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
    const notBefore = iso(o.notBefore ?? -60_000);
    const notOnOrAfter = iso(o.notOnOrAfter ?? 300_000);
    const attributes = Object.entries(o.attributes ?? {}).map(([name, values]) =>
      `<saml:Attribute Name="${esc(name)}">${values.map((v) =>
        `<saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${esc(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`).join('');
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${esc(o.destination ?? o.acs)}"${irt}>` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      `<saml:Assertion ID="${esc(assertionId)}" Version="2.0" IssueInstant="${iso(0)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(o.email)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acs)}"/></saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
      `</saml:Assertion></samlp:Response>`;
    return { xml, assertionId };
  }

  /** Signs the element `target` (Assertion or Response) of `xml`, placing the signature after its Issuer. */
  sign(xml: string, target: 'Assertion' | 'Response', signer: SpKeyPair = this.keys): string {
    const sig = new SignedXml({
      privateKey: signer.key, publicCert: signer.cert,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    const element = target === 'Assertion' ? "//*[local-name(.)='Assertion']" : "/*[local-name(.)='Response']";
    sig.addReference({
      xpath: element,
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    sig.computeSignature(xml, { location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } });
    return sig.getSignedXml();
  }

  /** A SAMLResponse (base64) as the IdP POSTs it. */
  response(o: ResponseOptions): { samlResponse: string; xml: string; assertionId: string } {
    const built = this.responseXml(o);
    let xml = built.xml;
    const mode = o.sign ?? 'assertion';
    if (mode === 'assertion' || mode === 'both') xml = this.sign(xml, 'Assertion', o.signer);
    if (mode === 'response' || mode === 'both') xml = this.sign(xml, 'Response', o.signer);
    return { samlResponse: Buffer.from(xml).toString('base64'), xml, assertionId: built.assertionId };
  }
}
