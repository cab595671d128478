/**
 * Which version of a descriptor an install or update gets: omitted (or
 * "latest") → the descriptor's `latestVersion`; an exact version → that one;
 * a semver range → the highest listed version that satisfies it
 * (pre-releases only when the range names one, as npm does).
 */
import semver from "semver";
import { CyrnelError } from "../../errors.js";

export interface VersionedDescriptor {
  id: string;
  latestVersion: string;
  versions: Record<string, unknown>;
}

export function selectVersion(descriptor: VersionedDescriptor, requested: string | undefined, source: string): string {
  const listed = Object.keys(descriptor.versions);
  const invalid = listed.filter((version) => semver.valid(version) === null);
  if (invalid.length > 0) {
    throw new CyrnelError(
      "bad_request",
      `descriptor at ${source} lists versions that are not semver: ${invalid.join(", ")}`,
    );
  }
  const wanted = requested?.trim();
  if (wanted === undefined || wanted === "" || wanted === "latest") return descriptor.latestVersion;
  const available = () => `available: ${semver.rsort([...listed]).join(", ")}`;
  const exact = semver.valid(wanted);
  if (exact !== null) {
    const match = listed.find((version) => semver.eq(version, exact));
    if (match === undefined) {
      throw new CyrnelError("not_found", `version ${exact} of "${descriptor.id}" is not in ${source} (${available()})`);
    }
    return match;
  }
  if (semver.validRange(wanted) === null) {
    throw new CyrnelError("bad_request", `version "${wanted}" is neither a semver version nor a semver range`);
  }
  const best = semver.maxSatisfying(listed, wanted);
  if (best === null) {
    throw new CyrnelError(
      "not_found",
      `no version of "${descriptor.id}" in ${source} satisfies "${wanted}" (${available()})`,
    );
  }
  return best;
}
