/**
 * Administration: API tokens, SSO providers, the audit log. A tab shows when the user holds its
 * permission; the audit log also only when the server has that route (a 404 to a one-entry probe).
 */
import { ScentApiError } from 'scent/client';
import { Loading } from '../components/ui.tsx';
import { useAsync } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can } from '../session.ts';
import { SsoProviders } from './admin-sso.tsx';
import { ApiTokens } from './admin-tokens.tsx';
import { AuditLogs } from './admin-audit.tsx';

const TABS = [
  { id: 'tokens', label: 'API tokens', permission: 'auth/CreateToken', component: ApiTokens },
  { id: 'sso', label: 'SSO providers', permission: 'auth/ManageProviders', component: SsoProviders },
  { id: 'audit', label: 'Audit log', permission: 'audit_log/Read', component: AuditLogs },
];

/** Whether the server has the audit route (it arrived after the console's first version). */
async function hasAuditLog(): Promise<boolean> {
  if (!can('audit_log/Read')) return false;
  try {
    await api.listAuditLogs({ limit: 1 });
    return true;
  } catch (err) {
    if (err instanceof ScentApiError && err.status === 404) return false;
    throw err;
  }
}

export function Admin() {
  const { params } = useRoute();
  const audit = useAsync(hasAuditLog, []);
  if (audit.loading) return <Loading />;
  const tabs = TABS.filter((t) => can(t.permission) && (t.id !== 'audit' || audit.data === true));
  const tab = tabs.find((t) => t.id === params.get('tab')) ?? tabs[0];
  return (
    <div class="screen">
      <h1>Administration</h1>
      {tabs.length ? (
        <>
          <div role="tablist" aria-label="Administration views" class="tabs">
            {tabs.map((t) => <button type="button" role="tab" aria-selected={t.id === tab.id} onClick={() => setParams({ tab: t.id })}>{t.label}</button>)}
          </div>
          <tab.component />
        </>
      ) : <p class="notice">Your role has nothing to administer.</p>}
    </div>
  );
}
