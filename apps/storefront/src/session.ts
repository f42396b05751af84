/** The storefront's view of the member session. */
export { useMemberSession as useSession } from '@shopkit/react';
