/**
 * The IdP's SAML metadata, read and checked when a provider is created or its metadata replaced (not
 * first at sign-in, as BloodHound does): entity id, the SingleSignOnService locations and the signing
 * certificates, each a valid X.509 certificate. The failures are the 400 texts of the create route.
 */
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
export const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
export const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export class MetadataError extends Error {}

export interface IdpMetadata {
  entityId: string;
  /** HTTP-POST SingleSignOnService (required). */
  ssoPostUrl: string;
  /** HTTP-Redirect SingleSignOnService, when offered (the login prefers it, as BloodHound). */
  ssoRedirectUrl: string | null;
  /** The IdP's signing certificates, PEM. */
  certificates: string[];
}

/** A document type declaration (and with it any entity) is refused before parsing: no SAML message or metadata needs one. */
export function hasDoctype(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/** Parses XML strictly: a warning or error of the parser is a failure. */
export function parseXml(xml: string): Document {
  if (hasDoctype(xml)) throw new MetadataError('XML with a DOCTYPE or entity declarations is not accepted');
  const problems: string[] = [];
  const record = (msg: string) => problems.push(msg.replace(/^\[xmldom \w+\]\s*/, '').replace(/\s*@#\[line:.*$/s, '').trim());
  const doc = new DOMParser({ errorHandler: { warning: record, error: record, fatalError: record } }).parseFromString(xml, 'text/xml');
  if (problems.length || !doc?.documentElement) throw new MetadataError(`metadata is not well-formed XML: ${problems[0] ?? 'no root element'}`);
  return doc as unknown as Document;
}

const children = (el: Element, ns: string, name: string): Element[] =>
  Array.from(el.getElementsByTagNameNS(ns, name) as unknown as ArrayLike<Element>);

/** A base64 certificate body as PEM, checked by Node's X.509 parser. */
export function certificatePem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new MetadataError('metadata signing certificate is not valid base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new MetadataError('metadata signing certificate is not a valid X.509 certificate');
  }
  return pem;
}

export function parseIdpMetadata(xml: string): IdpMetadata {
  if (!xml.trim()) throw new MetadataError('metadata is empty');
  const doc = parseXml(xml) as unknown as { documentElement: Element };
  const root = doc.documentElement;
  const entities = root.localName === 'EntityDescriptor' && root.namespaceURI === MD ? [root] : children(root, MD, 'EntityDescriptor');
  const entity = entities.find((e) => children(e, MD, 'IDPSSODescriptor').length > 0);
  if (!entity) throw new MetadataError('metadata does not describe an identity provider (no IDPSSODescriptor)');
  const entityId = entity.getAttribute('entityID')?.trim();
  if (!entityId) throw new MetadataError('metadata does not have an entityID');
  const idp = children(entity, MD, 'IDPSSODescriptor')[0];
  const services = children(idp, MD, 'SingleSignOnService');
  const location = (binding: string) => services.find((s) => s.getAttribute('Binding') === binding)?.getAttribute('Location')?.trim() || null;
  const ssoPostUrl = location(BINDING_POST);
  if (!ssoPostUrl) throw new MetadataError('metadata does not have a SSO service that supports HTTP POST binding');
  const ssoRedirectUrl = location(BINDING_REDIRECT);
  for (const url of [ssoPostUrl, ssoRedirectUrl]) {
    if (url !== null && !/^https?:\/\/[^/]/i.test(url)) throw new MetadataError(`metadata SSO service location is not an http(s) URL: ${url}`);
  }
  const certificates = children(idp, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') || 'signing') === 'signing')
    .flatMap((k) => children(k, DS, 'X509Certificate'))
    .map((c) => certificatePem(c.textContent ?? ''));
  if (!certificates.length) throw new MetadataError('metadata does not have a signing certificate');
  return { entityId, ssoPostUrl, ssoRedirectUrl, certificates: [...new Set(certificates)] };
}
