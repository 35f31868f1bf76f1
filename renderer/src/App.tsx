import { createHashRouter, Navigate, RouterProvider } from 'react-router';
import { Layout, type NavItem } from './components/Layout.js';
import { DatasetsPage } from './pages/datasets/DatasetsPage.js';

/** The pages, in the order of the work: curate a dataset, add a model, run, read the results, compare. */
const NAV: readonly NavItem[] = [{ to: '/datasets', label: 'Datasets', key: 'd' }];

// A hash router: the same URLs work from Electron's file:// and from `wapii serve`.
const router = createHashRouter([
  {
    path: '/',
    element: <Layout items={NAV} />,
    children: [
      { index: true, element: <Navigate to="/datasets" replace /> },
      { path: 'datasets', element: <DatasetsPage /> },
      { path: '*', element: <Navigate to="/datasets" replace /> },
    ],
  },
]);

export function App(): React.JSX.Element {
  return <RouterProvider router={router} />;
}
