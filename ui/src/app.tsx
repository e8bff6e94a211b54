/** The shell: sign-in gate, navigation, the current screen. */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Loading } from './components/ui.tsx';
import { useAsync } from './components/hooks.ts';
import { href, navigate, useRoute } from './router.ts';
import { api, can, describe, resume, session, signOut } from './session.ts';
import { useStore } from './store.ts';
import { SignIn } from './screens/sign-in.tsx';
import { lazy } from './components/lazy.tsx';

const Explore = lazy(() => import('./screens/explore.tsx').then((m) => m.Explore));
const Zones = lazy(() => import('./screens/zones.tsx').then((m) => m.Zones));
const DataQuality = lazy(() => import('./screens/data-quality.tsx').then((m) => m.DataQuality));
const Upload = lazy(() => import('./screens/upload.tsx').then((m) => m.Upload));
const Collection = lazy(() => import('./screens/collection.tsx').then((m) => m.Collection));
const Admin = lazy(() => import('./screens/admin.tsx').then((m) => m.Admin));

interface Screen { id: string; title: string; component: FunctionComponent; permission?: string; enterprise?: boolean }

/** Every screen of the console, in navigation order. */
export const SCREENS: Screen[] = [
  { id: 'explore', title: 'Explore', component: Explore, permission: 'graphdb/Read' },
  { id: 'zones', title: 'Privilege Zones', component: Zones, permission: 'graphdb/Read' },
  { id: 'data-quality', title: 'Data quality', component: DataQuality, permission: 'graphdb/Read' },
  { id: 'upload', title: 'Upload', component: Upload },
  { id: 'collection', title: 'Collection', component: Collection, permission: 'clients/Read', enterprise: true },
  { id: 'admin', title: 'Administration', component: Admin },
];

export function App() {
  const [ready, setReady] = useState(false);
  const [bootError, setBootError] = useState<string | null>(null);
  useEffect(() => {
    resume().then(() => setReady(true), (err) => (setBootError(describe(err)), setReady(true)));
  }, []);
  const { current } = useStore(session);
  if (!ready) return <Loading what="Starting" />;
  if (!current) return <SignIn bootError={bootError} />;
  if (!current.user) return <Loading what="Loading your account" />;
  return <Shell />;
}

function Shell() {
  const { screen } = useRoute();
  const { current } = useStore(session);
  const version = useAsync(() => api.version(), []);
  const enterprise = version.data?.product_edition !== 'community';
  const visible = SCREENS.filter((s) => (!s.permission || can(s.permission)) && (!s.enterprise || enterprise));
  const active = visible.find((s) => s.id === screen);
  useEffect(() => {
    if (!active && visible.length) navigate(href(visible[0].id), true);
  }, [screen, visible.length]);
  useEffect(() => {
    document.title = active ? `${active.title} · Scent` : 'Scent';
  }, [active]);
  const user = current!.user!;
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand" aria-label="Scent">Scent</span>
        <nav aria-label="Screens">
          <ul>
            {visible.map((s) => (
              <li><Link href={href(s.id)} aria-current={s.id === active?.id ? 'page' : undefined}>{s.title}</Link></li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={user.email_address.valid ? user.email_address.string : undefined}>{user.principal_name}</span>
          <span class="muted">{user.roles.map((r) => r.name).join(', ')}</span>
          <button type="button" onClick={() => signOut()}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {active ? <active.component key={active.id} /> : <Loading />}
      </main>
    </div>
  );
}
