/**
 * The label value of every destination or source an instance was not told about: metric labels
 * take only configured names and this one, so that rows and senders cannot create label values.
 */
export const OTHER_LABEL = '_other';
