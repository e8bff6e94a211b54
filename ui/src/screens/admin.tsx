/**
 * Administration: users and roles, API tokens, SSO providers, the audit log, features and
 * configuration. A tab shows when the user holds its permission, and (for the routes that arrived
 * after the console's first version) when the server has its route: a 404 to a small probe hides it.
 */
import { ScentApiError } from 'scent/client';
import type { JSX } from 'preact';
import { Loading } from '../components/ui.tsx';
import { useAsync } from '../components/hooks.ts';
import { setParams, useRoute } from '../router.ts';
import { api, can } from '../session.ts';
import { SsoProviders } from './admin-sso.tsx';
import { ApiTokens } from './admin-tokens.tsx';
import { AuditLogs } from './admin-audit.tsx';
import { UsersAndRoles } from './admin-users.tsx';
import { FeaturesAndConfig } from './admin-config.tsx';

interface Tab { id: string; label: string; permission: string; component: () => JSX.Element; probe?: () => Promise<unknown> }

const TABS: Tab[] = [
  { id: 'users', label: 'Users and roles', permission: 'auth/ManageUsers', component: UsersAndRoles, probe: () => api.request('GET', '/api/v2/roles') },
  { id: 'tokens', label: 'API tokens', permission: 'auth/CreateToken', component: ApiTokens },
  { id: 'sso', label: 'SSO providers', permission: 'auth/ManageProviders', component: SsoProviders },
  { id: 'audit', label: 'Audit log', permission: 'audit_log/Read', component: AuditLogs, probe: () => api.listAuditLogs({ limit: 1 }) },
  { id: 'config', label: 'Features and configuration', permission: 'app/ReadAppConfig', component: FeaturesAndConfig, probe: () => api.request('GET', '/api/v2/features') },
];

/** Whether the server has a tab's route: anything but a 404 to its probe. */
async function present(tab: Tab): Promise<boolean> {
  if (!can(tab.permission)) return false;
  if (!tab.probe) return true;
  try {
    await tab.probe();
    return true;
  } catch (err) {
    if (err instanceof ScentApiError && err.status === 404) return false;
    return true; // the tab itself says what went wrong
  }
}

export function Admin() {
  const { params } = useRoute();
  const shown = useAsync(async () => {
    const present_ = await Promise.all(TABS.map(present));
    return TABS.filter((_, i) => present_[i]);
  }, []);
  if (shown.loading) return <Loading />;
  const tabs = shown.data ?? [];
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
