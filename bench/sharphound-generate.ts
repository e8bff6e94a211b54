/**
 * Synthetic SharpHound v6 data at any scale: a domain of N users with, in realistic proportions,
 * N/10 groups (each user in ~3 of them, some nesting), N/4 computers (sessions, local admins, RDP
 * users), N/500 OUs, N/1000 GPOs and the ACEs a default AD gives every object (~10 each).
 * Files are written streamed (users.json, groups.json, ...), so any size fits in flat memory.
 *   node --import tsx bench/sharphound-generate.ts --users 100000 --out bench/.data/100k
 */
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';

export const DOMAIN_SID = 'S-1-5-21-3623811015-3361044348-30300820';
const DOMAIN_NAME = 'BENCH.LOCAL';

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Scale {
  users: number;
  groups: number;
  computers: number;
  ous: number;
  gpos: number;
}

export function scaleFor(users: number): Scale {
  return {
    users,
    groups: Math.max(10, Math.floor(users / 10)),
    computers: Math.max(4, Math.floor(users / 4)),
    ous: Math.max(2, Math.floor(users / 500)),
    gpos: Math.max(2, Math.floor(users / 1000)),
  };
}

const sid = (rid: number) => `${DOMAIN_SID}-${rid}`;
const userRid = (i: number) => 100_000 + i;
const groupRid = (i: number) => 10_000_000 + i;
const computerRid = (i: number) => 20_000_000 + i;
const guid = (prefix: number, i: number) =>
  `${prefix.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`.toUpperCase();
const ouId = (i: number) => guid(0x0a, i);
const gpoId = (i: number) => guid(0x0b, i);

const WELL_KNOWN_ACES = [
  { PrincipalSID: sid(512), PrincipalType: 'Group', RightName: 'GenericAll', IsInherited: false },
  { PrincipalSID: sid(519), PrincipalType: 'Group', RightName: 'GenericAll', IsInherited: true },
  { PrincipalSID: `${DOMAIN_NAME}-S-1-5-32-544`, PrincipalType: 'Group', RightName: 'WriteDacl', IsInherited: true },
  { PrincipalSID: `${DOMAIN_NAME}-S-1-5-32-544`, PrincipalType: 'Group', RightName: 'WriteOwner', IsInherited: true },
  { PrincipalSID: `${DOMAIN_NAME}-S-1-5-32-544`, PrincipalType: 'Group', RightName: 'AllExtendedRights', IsInherited: true },
  { PrincipalSID: `${DOMAIN_NAME}-S-1-5-32-548`, PrincipalType: 'Group', RightName: 'GenericAll', IsInherited: false },
  { PrincipalSID: sid(526), PrincipalType: 'Group', RightName: 'AddKeyCredentialLink', IsInherited: true },
  { PrincipalSID: sid(527), PrincipalType: 'Group', RightName: 'AddKeyCredentialLink', IsInherited: true },
  { PrincipalSID: sid(512), PrincipalType: 'Group', RightName: 'Owns', IsInherited: false },
];

function aces(r: () => number, extra: number, pick: (r: () => number) => { sid: string; type: string }) {
  const out: object[] = [...WELL_KNOWN_ACES];
  for (let k = 0; k < extra; k++) {
    const p = pick(r);
    out.push({ PrincipalSID: p.sid, PrincipalType: p.type, RightName: ['GenericWrite', 'WriteDacl', 'ForceChangePassword', 'AddMember'][k % 4], IsInherited: false });
  }
  return out;
}

function props(name: string, extra: Record<string, unknown>) {
  return {
    domain: DOMAIN_NAME, name: `${name}@${DOMAIN_NAME}`, distinguishedname: `CN=${name},OU=STAFF,DC=BENCH,DC=LOCAL`,
    domainsid: DOMAIN_SID, highvalue: false, samaccountname: name, description: null, whencreated: 1664482876,
    ...extra,
  };
}

async function writeFile(path: string, type: string, count: number, make: (i: number) => object): Promise<number> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let bytes = 0;
  const put = async (s: string) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await put('{"data":[');
  let buf: string[] = [];
  for (let i = 0; i < count; i++) {
    buf.push(JSON.stringify(make(i)));
    if (buf.length === 500) {
      await put((i >= 500 ? ',' : '') + buf.join(','));
      buf = [];
    }
  }
  if (buf.length) await put((count > buf.length ? ',' : '') + buf.join(','));
  await put(`],"meta":{"methods":521215,"type":"${type}","count":${count},"version":6}}`);
  out.end();
  await once(out, 'finish');
  return bytes;
}

/** Bump when generate() writes other files: cached collections of an older version are generated again. */
export const GENERATOR_VERSION = 2; // 2: Domain Admins has members

/** The collection of N users in bench/.data/sharphound-N, generated unless a current one is there. */
export async function sharpHoundFiles(users: number, dataDir: string, log: (s: string) => void): Promise<string[]> {
  const dir = join(dataDir, `sharphound-${users}`);
  const done = `${dir}.done`;
  if (!existsSync(done) || !readFileSync(done, 'utf8').startsWith(`v${GENERATOR_VERSION} `)) {
    log(`generating SharpHound files for ${users} users into ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    await generate(users, dir);
    writeFileSync(done, `v${GENERATOR_VERSION} ${new Date().toISOString()}`);
  }
  return readdirSync(dir).map((f) => join(dir, f)).sort();
}

export async function generate(users: number, dir: string, seed = 42): Promise<{ files: string[]; bytes: number; scale: Scale }> {
  mkdirSync(dir, { recursive: true });
  const s = scaleFor(users);
  const r = rng(seed);
  const anyPrincipal = (rr: () => number) => (rr() < 0.7
    ? { sid: sid(groupRid(Math.floor(rr() * s.groups))), type: 'Group' }
    : { sid: sid(userRid(Math.floor(rr() * s.users))), type: 'User' });
  const files: string[] = [];
  let bytes = 0;
  const file = async (type: string, count: number, make: (i: number) => object) => {
    const path = join(dir, `${type}.json`);
    bytes += await writeFile(path, type, count, make);
    files.push(path);
  };
  await file('domains', 1, () => ({
    ObjectIdentifier: DOMAIN_SID, Properties: { name: DOMAIN_NAME, domain: DOMAIN_NAME, domainsid: DOMAIN_SID, functionallevel: '2016', highvalue: true },
    Aces: aces(r, 10, anyPrincipal), Links: [{ IsEnforced: false, GUID: gpoId(0) }], ChildObjects: [], Trusts: [], GPOChanges: null,
    IsDeleted: false, IsACLProtected: false, ContainedBy: null,
  }));
  await file('ous', s.ous, (i) => ({
    ObjectIdentifier: ouId(i), Properties: props(`OU${i}`, { blocksinheritance: false }), Aces: aces(r, 2, anyPrincipal),
    Links: [{ IsEnforced: false, GUID: gpoId(i % s.gpos) }], ChildObjects: [], GPOChanges: null,
    IsDeleted: false, IsACLProtected: false, ContainedBy: { ObjectIdentifier: DOMAIN_SID, ObjectType: 'Domain' },
  }));
  await file('gpos', s.gpos, (i) => ({
    ObjectIdentifier: gpoId(i), Properties: props(`GPO${i}`, { gpcpath: `\\\\BENCH.LOCAL\\SYSVOL\\${i}` }), Aces: aces(r, 1, anyPrincipal),
    IsDeleted: false, IsACLProtected: false, ContainedBy: { ObjectIdentifier: DOMAIN_SID, ObjectType: 'Domain' },
  }));
  await file('users', s.users, (i) => ({
    Properties: props(`USER${i}`, {
      sensitive: false, dontreqpreauth: r() < 0.01, passwordnotreqd: false, unconstraineddelegation: false, pwdneverexpires: r() < 0.1,
      enabled: r() < 0.9, trustedtoauth: false, lastlogon: 1668103432, lastlogontimestamp: 1668103429, pwdlastset: 1664482876,
      serviceprincipalnames: [], hasspn: false, displayname: `User ${i}`, email: `user${i}@bench.local`, title: 'Staff',
      admincount: r() < 0.01, sidhistory: [],
    }),
    AllowedToDelegate: [], PrimaryGroupSID: sid(513), HasSIDHistory: [], SPNTargets: [],
    Aces: aces(r, 1, anyPrincipal), ObjectIdentifier: sid(userRid(i)), IsDeleted: false, IsACLProtected: false,
    ContainedBy: { ObjectIdentifier: ouId(i % s.ous), ObjectType: 'OU' },
  }));
  // Memberships: each user in ~3 groups; each group (after the first 100) nested in one earlier group.
  const members: Array<Array<{ ObjectIdentifier: string; ObjectType: string }>> = Array.from({ length: s.groups }, () => []);
  for (let u = 0; u < s.users; u++) {
    for (let k = 0; k < 3; k++) members[Math.floor(r() * s.groups)].push({ ObjectIdentifier: sid(userRid(u)), ObjectType: 'User' });
  }
  for (let g = 100; g < s.groups; g++) members[Math.floor(r() * 100)].push({ ObjectIdentifier: sid(groupRid(g)), ObjectType: 'Group' });
  // Domain Admins (a record of its own after the generated groups, drawing no random numbers, so the rest of
  // the collection is unchanged): five users, so attack paths to it exist as in a real domain.
  await file('groups', s.groups + 1, (i) => {
    if (i === s.groups) {
      return {
        ObjectIdentifier: sid(512), Properties: props('DOMAIN ADMINS', { admincount: true }), Aces: [], IsDeleted: false, IsACLProtected: false,
        Members: Array.from({ length: Math.min(5, s.users) }, (_, u) => ({ ObjectIdentifier: sid(userRid(u)), ObjectType: 'User' })),
      };
    }
    const m = members[i];
    members[i] = [];
    return {
      ObjectIdentifier: sid(groupRid(i)), Properties: props(`GROUP${i}`, { admincount: false }), Members: m,
      Aces: aces(r, 1, anyPrincipal), IsDeleted: false, IsACLProtected: false,
      ContainedBy: { ObjectIdentifier: ouId(i % s.ous), ObjectType: 'OU' },
    };
  });
  const session = (n: number) => ({
    Collected: true, FailureReason: null,
    Results: Array.from({ length: n }, () => ({ UserSID: sid(userRid(Math.floor(r() * s.users))), ComputerSID: '' })),
  });
  await file('computers', s.computers, (i) => ({
    ObjectIdentifier: sid(computerRid(i)), Properties: props(`COMP${i}`, {
      enabled: true, unconstraineddelegation: false, trustedtoauth: false, operatingsystem: 'Windows Server 2019',
      lastlogon: 1668103432, lastlogontimestamp: 1668103429, pwdlastset: 1664482876, haslaps: r() < 0.5,
    }),
    PrimaryGroupSID: sid(515), AllowedToDelegate: [], AllowedToAct: [], HasSIDHistory: [], DumpSMSAPassword: [],
    Sessions: session(r() < 0.6 ? 2 : 0), PrivilegedSessions: session(r() < 0.3 ? 1 : 0), RegistrySessions: session(0),
    LocalGroups: [
      { ObjectIdentifier: `${sid(computerRid(i))}-544`, Name: `ADMINISTRATORS@COMP${i}`, Collected: true, FailureReason: null, LocalNames: [],
        Results: [{ ObjectIdentifier: sid(512), ObjectType: 'Group' }, { ObjectIdentifier: sid(groupRid(Math.floor(r() * s.groups))), ObjectType: 'Group' }] },
      { ObjectIdentifier: `${sid(computerRid(i))}-555`, Name: `REMOTE DESKTOP USERS@COMP${i}`, Collected: true, FailureReason: null, LocalNames: [],
        Results: [{ ObjectIdentifier: sid(userRid(Math.floor(r() * s.users))), ObjectType: 'User' }] },
    ],
    UserRights: [], DCRegistryData: null, Status: null,
    Aces: aces(r, 1, anyPrincipal), IsDeleted: false, IsACLProtected: false,
    ContainedBy: { ObjectIdentifier: ouId(i % s.ous), ObjectType: 'OU' },
  }));
  return { files, bytes, scale: s };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string, d: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : d;
  };
  const users = Number(arg('users', '10000'));
  const out = arg('out', `bench/.data/sharphound-${users}`);
  const t0 = performance.now();
  const { files, bytes } = await generate(users, out);
  console.log(`${files.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s → ${out}`);
}
