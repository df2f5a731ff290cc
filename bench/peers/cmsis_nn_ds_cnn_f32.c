/* cmsis_nn_ds_cnn_f32.c - DS-CNN in f32 on CMSIS-NN's float kernels.
 *
 * The layers of bench/models/generate_models.py's ds-cnn on CMSIS-NN's f32 API
 * (built with ARM_NN_ENABLE_F32): arm_convolve_f32 for the first layer and the 1x1
 * convolutions, arm_depthwise_conv_f32, arm_avg_pool_f32 and arm_fully_connected_f32,
 * ReLU as each layer's activation clamp, with the weights bench/cortex_m.py writes
 * into ds_cnn_f32_weights.h (filters OHWI, depthwise filters [kernel][channel], the
 * dense layer's weights [output][input]). Activations ping-pong between two buffers
 * and one context buffer holds the kernels' scratch: these three are CMSIS-NN's
 * memory, printed as `buffers`.
 *
 * Runs the network RUNS times (bench/cortex_m.py counts RUNS=1 and RUNS=2 and takes
 * the difference), then prints the output's bits and exits through semihosting.
 */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_nnfunctions.h"
#include "ds_cnn_f32_weights.h"

#ifndef RUNS
#define RUNS 1
#endif

#define ACTIVATION_FLOATS (25 * 5 * 64)
#define CONTEXT_BYTES 32768
#include "cmsis_nn_context.h"

static float ping[ACTIVATION_FLOATS] __attribute__((aligned(16)));
static float pong[ACTIVATION_FLOATS] __attribute__((aligned(16)));
static float output[12];

static const cmsis_nn_dims feature_map = {1, 25, 5, 64};
static const cmsis_nn_activation_f32 relu = {0.0f, FLT_MAX};

static void convolution(const FloatConvLayer *layer, const cmsis_nn_dims *input_dims,
                        const float *input, float *out) {
  cmsis_nn_conv_params_f32 params = {{layer->stride, layer->stride},
                                     {layer->pad_left, layer->pad_top},
                                     {1, 1},
                                     relu,
                                     ARM_NN_WEIGHT_FORMAT_STANDARD};
  cmsis_nn_dims filter = {feature_map.c, layer->kernel_h, layer->kernel_w, input_dims->c};
  cmsis_nn_dims bias = {1, 1, 1, feature_map.c};
  cmsis_nn_context ctx = context(arm_convolve_f32_get_buffer_size(
      &params, input_dims, &filter, &feature_map, ARM_NN_LAYOUT_NHWC));
  check(arm_convolve_f32(&ctx, &params, input_dims, input, &filter, layer->filter, &bias,
                         layer->bias, &feature_map, out, ARM_NN_LAYOUT_NHWC));
}

static void depthwise(const FloatConvLayer *layer, const float *input, float *out) {
  cmsis_nn_dw_conv_params_f32 params = {1, {1, 1}, {1, 1}, {1, 1}, relu};
  cmsis_nn_dims filter = {1, 3, 3, 64};
  cmsis_nn_dims bias = {1, 1, 1, 64};
  cmsis_nn_context ctx = context(arm_depthwise_conv_f32_get_buffer_size(
      &params, &feature_map, &filter, &feature_map, ARM_NN_LAYOUT_NHWC));
  check(arm_depthwise_conv_f32(&ctx, &params, &feature_map, input, &filter, layer->filter, &bias,
                               layer->bias, &feature_map, out, ARM_NN_LAYOUT_NHWC));
}

static void infer(const float *input) {
  const cmsis_nn_dims input_dims = {1, 49, 10, 1};
  convolution(&conv1, &input_dims, input, ping);
  for (int block = 0; block < 4; ++block) {
    depthwise(&depthwise_layers[block], ping, pong);
    convolution(&pointwise_layers[block], &feature_map, pong, ping);
  }
  cmsis_nn_pool_params_f32 pool_params = {{1, 1}, {0, 0}, {-FLT_MAX, FLT_MAX}};
  cmsis_nn_dims pool_filter = {1, 25, 5, 1};
  cmsis_nn_dims pooled_dims = {1, 1, 1, 64};
  cmsis_nn_context pool_ctx = context(0);
  check(arm_avg_pool_f32(&pool_ctx, &pool_params, &feature_map, ping, &pool_filter, &pooled_dims,
                         pong));
  cmsis_nn_fc_params_f32 fc_params = {{-FLT_MAX, FLT_MAX}, ARM_NN_WEIGHT_FORMAT_STANDARD};
  cmsis_nn_dims fc_input = {1, 1, 1, 64}, fc_filter = {64, 1, 1, 12}, fc_bias = {1, 1, 1, 12};
  cmsis_nn_dims fc_output = {1, 1, 1, 12};
  cmsis_nn_context fc_ctx = context(arm_fully_connected_f32_get_buffer_size(
      &fc_params, &fc_input, &fc_filter, &fc_output, ARM_NN_LAYOUT_NHWC));
  check(arm_fully_connected_f32(&fc_ctx, &fc_params, &fc_input, pong, &fc_filter, fc_weights,
                                &fc_bias, fc_bias_values, &fc_output, output, ARM_NN_LAYOUT_NHWC));
}

int main(void) {
  for (int run = 0; run < RUNS; ++run)
    infer(model_input);
  printf("buffers=%d output=", (int)(2 * sizeof(float) * ACTIVATION_FLOATS + (size_t)context_used));
  for (int i = 0; i < 12; ++i) {
    uint32_t bits;
    memcpy(&bits, &output[i], sizeof bits);
    printf("%08lx%s", (unsigned long)bits, i < 11 ? "," : "\n");
  }
  return 0;
}
