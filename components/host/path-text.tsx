import { Fragment } from 'react';
import { pathPieces } from './inventory-view';

/** A filesystem or cgroup path that wraps at its slashes; a name longer than the line still breaks, as a last resort. */
export function PathText({ path }: { path: string }) {
  return (
    <span className="path-text">
      {pathPieces(path).map((piece, i) => (
        <Fragment key={i}>
          {piece}
          <wbr />
        </Fragment>
      ))}
    </span>
  );
}
