// How far apart two drawings of one line may lie and still be the same line.

/**
 * Metres. Publishers simplify a map anew for each release, and draw the parcel layer and the
 * zoning map apart, which moves a boundary by a metre or two; a rezoning, or a real split of a lot
 * by a district line, moves it by at least a lot's width. A strip narrower than this, between two
 * maps or two versions of one, is a difference of drawing, not of law.
 */
export const DRAWING_TOLERANCE_M = 6;
