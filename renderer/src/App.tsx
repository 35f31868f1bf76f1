import { createHashRouter, Navigate, RouterProvider } from 'react-router';
import { Layout, type NavItem } from './components/Layout.js';
import { ComparePage } from './pages/compare/ComparePage.js';
import { DatasetsPage } from './pages/datasets/DatasetsPage.js';
import { ModelsPage } from './pages/models/ModelsPage.js';
import { ReviewPage } from './pages/review/ReviewPage.js';
import { NewRunPage } from './pages/runs/NewRunPage.js';
import { RunPage } from './pages/runs/RunPage.js';
import { RunsPage } from './pages/runs/RunsPage.js';
import { SpecVersionsPage } from './pages/specs/SpecVersionsPage.js';

/** The pages, in the order of the work: curate a dataset, add a model, run, read the results, compare. */
const NAV: readonly NavItem[] = [
  { to: '/datasets', label: 'Datasets', key: 'd' },
  { to: '/review', label: 'Review', key: 'v' },
  { to: '/models', label: 'Models', key: 'm' },
  { to: '/runs/new', label: 'New run', key: 'n' },
  { to: '/runs', label: 'Runs', key: 'r' },
  { to: '/compare', label: 'Compare', key: 'c' },
  { to: '/specs', label: 'Spec versions', key: 's' },
];

// A hash router: the same URLs work from Electron's file:// and from `wapii serve`.
const router = createHashRouter([
  {
    path: '/',
    element: <Layout items={NAV} />,
    children: [
      { index: true, element: <Navigate to="/datasets" replace /> },
      { path: 'datasets', element: <DatasetsPage /> },
      { path: 'review', element: <ReviewPage /> },
      { path: 'models', element: <ModelsPage /> },
      { path: 'runs', element: <RunsPage /> },
      { path: 'runs/new', element: <NewRunPage /> },
      { path: 'runs/:runId', element: <RunPage /> },
      { path: 'compare', element: <ComparePage /> },
      { path: 'specs', element: <SpecVersionsPage /> },
      { path: '*', element: <Navigate to="/datasets" replace /> },
    ],
  },
]);

export function App(): React.JSX.Element {
  return <RouterProvider router={router} />;
}
