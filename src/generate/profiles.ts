/**
 * The profile table moved to `src/model/profiles.ts` (every profile's traits, both modes, in one
 * place); this module re-exports it for code and callers that import it from here.
 *
 * @module
 */
export {
  DEFAULT_PROFILE,
  isProfile,
  PROFILE_NAMES,
  PROFILES,
  type ProfileTraits,
  profileTraits,
  traitsOfName,
} from "../model/profiles.js";
