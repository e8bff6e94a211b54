/**
 * FROZEN: e-mail addresses are unique among users, whatever their case (BloodHound refuses a second
 * user with the same address: 409 `email must be unique`; login finds a user by lower-cased address,
 * so two users with one address would make that lookup ambiguous). Users without an address are
 * not constrained (NULLs are distinct in a unique index on both databases).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_email_address_lower').unique().on('users').expression(sql`lower(email_address)`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_email_address_lower').execute();
}
