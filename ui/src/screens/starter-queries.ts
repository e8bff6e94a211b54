/** A few queries to start from (Scent's own). BloodHound's Query Library appears as saved queries once imported. */
export const STARTER_QUERIES: Array<{ name: string; query: string; description: string }> = [
  { name: 'Tier Zero objects', description: 'Every member of the Tier Zero tag', query: 'MATCH (n:Tag_Tier_Zero)\nRETURN n\nLIMIT 500' },
  { name: 'Domain Admins and who is in them', description: 'Direct and nested members of every Domain Admins group (RID 512)', query: "MATCH p = (n)-[:MemberOf*1..]->(g:Group)\nWHERE g.objectid ENDS WITH '-512'\nRETURN p\nLIMIT 500" },
  { name: 'Kerberoastable users', description: 'Enabled users with a service principal name', query: 'MATCH (u:User)\nWHERE u.hasspn = true AND u.enabled = true\nRETURN u\nLIMIT 500' },
  { name: 'DCSync rights', description: 'Principals that can replicate directory secrets', query: 'MATCH p = (n)-[:DCSync]->(d:Domain)\nRETURN p\nLIMIT 500' },
  { name: 'Enrollment on certificate templates', description: 'Who may enroll in which template', query: 'MATCH p = (n)-[:Enroll]->(t:CertTemplate)\nRETURN p\nLIMIT 500' },
  { name: 'Paths from Owned to Tier Zero', description: 'Shortest attack paths from owned objects to Tier Zero', query: 'MATCH p = shortestPath((s:Tag_Owned)-[:AD_ATTACK_PATHS*1..]->(t:Tag_Tier_Zero))\nWHERE s <> t\nRETURN p\nLIMIT 100' },
  { name: 'Objects per kind', description: 'A count per primary kind (a table of values)', query: 'MATCH (n:Base)\nRETURN labels(n) AS kinds, count(n) AS objects\nORDER BY objects DESC' },
];
