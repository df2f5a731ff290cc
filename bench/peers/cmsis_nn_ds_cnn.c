/* cmsis_nn_ds_cnn.c - DS-CNN int8 on CMSIS-NN, as TFLite Micro runs it on Cortex-M.
 *
 * The layers of bench/models/quantized_models.py's ds-cnn-int8 on CMSIS-NN's s8
 * kernels: arm_convolve_wrapper_s8 (the first layer and the 1x1 convolutions),
 * arm_depthwise_conv_wrapper_s8, arm_avgpool_s8 and arm_fully_connected_s8, with the
 * weights, biases and per-channel multipliers and shifts bench/cortex_m.py derives
 * from the model's files (TFLite's QuantizeMultiplier) in ds_cnn_weights.h. The
 * average pool keeps its input's quantization, as TFLite's does, so the dense layer
 * takes it; the HLO rescales the pool instead, and the outputs may differ by a unit
 * or two. Activations ping-pong between two buffers and one context buffer holds
 * the kernels' scratch: these three are CMSIS-NN's memory, printed as `buffers`.
 *
 * Runs the network RUNS times (bench/cortex_m.py counts RUNS=1 and RUNS=2 and takes
 * the difference), then prints the output and exits through semihosting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arm_nnfunctions.h"
#include "ds_cnn_weights.h"

#ifndef RUNS
#define RUNS 1
#endif

#define ACTIVATION_BYTES (25 * 5 * 64)
#define CONTEXT_BYTES 8192
#include "cmsis_nn_context.h"

static int8_t ping[ACTIVATION_BYTES] __attribute__((aligned(16)));
static int8_t pong[ACTIVATION_BYTES] __attribute__((aligned(16)));
static int8_t output[12];
/* Helium's fully connected kernel takes the weights' sums (with the input offset and
 * the bias folded in) from its context, computed once as TFLite Micro does at init. */
static int32_t dense_sums[12];
static int32_t dense_sums_bytes;

static const cmsis_nn_dims feature_map = {1, 25, 5, 64};

static void convolution(const ConvLayer *layer, const cmsis_nn_dims *input_dims,
                        const int8_t *input, const cmsis_nn_dims *output_dims, int8_t *out) {
  cmsis_nn_conv_params params = {layer->input_offset,
                                 layer->output_offset,
                                 {layer->stride, layer->stride},
                                 {layer->pad_left, layer->pad_top},
                                 {1, 1},
                                 {layer->min, layer->max}};
  cmsis_nn_per_channel_quant_params quant = {(int32_t *)layer->multiplier, (int32_t *)layer->shift};
  cmsis_nn_dims filter = {output_dims->c, layer->kernel_h, layer->kernel_w, input_dims->c};
  cmsis_nn_dims bias = {1, 1, 1, output_dims->c};
  cmsis_nn_context ctx =
      context(arm_convolve_wrapper_s8_get_buffer_size(&params, input_dims, &filter, output_dims));
  check(arm_convolve_wrapper_s8(&ctx, &params, &quant, input_dims, input, &filter, layer->filter,
                                &bias, layer->bias, output_dims, out));
}

static void depthwise(const ConvLayer *layer, const int8_t *input, int8_t *out) {
  cmsis_nn_dw_conv_params params = {
      layer->input_offset,     layer->output_offset, 1, {1, 1}, {1, 1}, {1, 1},
      {layer->min, layer->max}};
  cmsis_nn_per_channel_quant_params quant = {(int32_t *)layer->multiplier, (int32_t *)layer->shift};
  cmsis_nn_dims filter = {1, 3, 3, 64};
  cmsis_nn_dims bias = {1, 1, 1, 64};
  cmsis_nn_context ctx = context(
      arm_depthwise_conv_wrapper_s8_get_buffer_size(&params, &feature_map, &filter, &feature_map));
  check(arm_depthwise_conv_wrapper_s8(&ctx, &params, &quant, &feature_map, input, &filter,
                                      layer->filter, &bias, layer->bias, &feature_map, out));
}

static void infer(const int8_t *input) {
  const cmsis_nn_dims input_dims = {1, 49, 10, 1};
  convolution(&conv1, &input_dims, input, &feature_map, ping);
  for (int block = 0; block < 4; ++block) {
    depthwise(&depthwise_layers[block], ping, pong);
    convolution(&pointwise_layers[block], &feature_map, pong, &feature_map, ping);
  }
  cmsis_nn_pool_params pool_params = {{1, 1}, {0, 0}, {-128, 127}};
  cmsis_nn_dims pool_filter = {1, 25, 5, 1};
  cmsis_nn_dims pooled_dims = {1, 1, 1, 64};
  cmsis_nn_context pool_ctx = context(arm_avgpool_s8_get_buffer_size(1, 64));
  check(arm_avgpool_s8(&pool_ctx, &pool_params, &feature_map, ping, &pool_filter, &pooled_dims,
                       pong));
  cmsis_nn_fc_params fc_params = {dense.input_offset, 0, dense.output_offset, {-128, 127}};
  cmsis_nn_per_tensor_quant_params fc_quant = {dense.multiplier[0], dense.shift[0]};
  cmsis_nn_dims fc_input = {1, 1, 1, 64}, fc_filter = {64, 1, 1, 12}, fc_bias = {1, 1, 1, 12};
  cmsis_nn_dims fc_output = {1, 1, 1, 12};
  cmsis_nn_context fc_ctx = {dense_sums, dense_sums_bytes};
  check(arm_fully_connected_s8(&fc_ctx, &fc_params, &fc_quant, &fc_input, pong, &fc_filter,
                               dense.filter, &fc_bias, dense.bias, &fc_output, output));
}

int main(void) {
  const cmsis_nn_dims fc_filter = {64, 1, 1, 12};
  dense_sums_bytes = arm_fully_connected_s8_get_buffer_size(&fc_filter);
  if (dense_sums_bytes > 0)
    arm_vector_sum_s8(dense_sums, 64, 12, dense.filter, dense.input_offset, 0, dense.bias);
  for (int run = 0; run < RUNS; ++run)
    infer(model_input);
  printf("buffers=%d output=", (int)(2 * ACTIVATION_BYTES + context_used + dense_sums_bytes));
  for (int i = 0; i < 12; ++i)
    printf("%d%s", output[i], i < 11 ? "," : "\n");
  return 0;
}
