import { screen } from '@testing-library/react';
import { renderInTestApp } from '@backstage/test-utils';
import { InferencePlatformsPage } from './InferencePlatformsPage';

describe('InferencePlatformsPage', () => {
  it('renders inside the app shell', async () => {
    await renderInTestApp(<InferencePlatformsPage />);
    expect(screen.getByText('Inference platforms')).toBeInTheDocument();
    expect(screen.getByText('No inference platforms yet')).toBeInTheDocument();
  });
});
