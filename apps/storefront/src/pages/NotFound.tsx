import { Link } from 'react-router';
import { useTitle } from '../title.ts';

export function NotFound() {
  useTitle('Page not found');
  return (
    <div className="notice">
      <h1>Page not found</h1>
      <p>
        This page does not exist. <Link to="/">Go to the home page</Link>.
      </p>
    </div>
  );
}
