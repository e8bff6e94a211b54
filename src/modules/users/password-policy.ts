/**
 * BloodHound's password rule for secrets set through the API (`SetUserSecretRequest`): at least 12
 * characters with one lower-case letter, one upper-case letter, one special character (punctuation
 * or symbol) and one digit. One message per unmet requirement.
 */
export function passwordProblems(secret: string): string[] {
  const problems: string[] = [];
  if ([...secret].length < 12) problems.push('secret must have at least 12 characters');
  if (!/\p{Ll}/u.test(secret)) problems.push('secret must have at least 1 lowercase characters');
  if (!/\p{Lu}/u.test(secret)) problems.push('secret must have at least 1 uppercase characters');
  if (!/[\p{P}\p{S}]/u.test(secret)) problems.push('secret must have at least 1 special characters');
  if (!/\p{N}/u.test(secret)) problems.push('secret must have at least 1 numeric characters');
  return problems;
}
