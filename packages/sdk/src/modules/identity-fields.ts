/**
 * An identity's transformed fields, as trees for `walk`: shared by the identity calls and by
 * `webhooks.process` (an `identity_created` event's entity). Internal: not an entry of the package.
 * @module
 */
import { address, date, float } from '../transforms.ts';

export const VALUE = { numValue: float, dateValue: date };
export const PROFILE = { customFields: { value: VALUE }, addresses: { address } };
export const IDENTITY_FIELDS = { createdDate: date, updatedDate: date, identityProfile: PROFILE };
