/** The slice colours of the statistics' pies, in order. */
export const PIE_COLORS = ['#12b886', '#fa5252', '#4c6ef5', '#fab005', '#7950f2', '#15aabf', '#fd7e14', '#e64980', '#82c91e', '#868e96'];
